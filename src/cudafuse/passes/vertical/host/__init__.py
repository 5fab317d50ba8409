"""Host facts: the launch sequences of a host function, what each pointer variable may point
to, what every statement between launches touches, and whether a launch's grid covers its
kernel's domain."""
