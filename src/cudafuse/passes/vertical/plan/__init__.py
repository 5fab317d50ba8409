"""Planning: which launches may become one kernel (legality.py), what a group gains and costs
(costmodel.py, traffic.py, resources.py), and the partition search (partition.py)."""
