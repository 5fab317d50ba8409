"""Kernel facts: what one kernel stores and loads, at which element, under which condition,
read by evaluating its IR (view.py is the entry: `recognise.view_of`)."""
