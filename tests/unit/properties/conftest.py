"""Hypothesis settings of the property tests: no per-example deadline (the machine is shared
and CI runs two lanes at once, so an example's time says nothing about the code)."""

from hypothesis import settings

settings.register_profile("properties", deadline=None)
settings.load_profile("properties")
