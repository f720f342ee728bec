import os

from hypothesis import settings

# The reference twin is pure Python and slow: no per-example deadline. In CI the
# examples are derandomized so a run is reproducible; locally they explore.
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
settings.register_profile("dev", deadline=None, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
