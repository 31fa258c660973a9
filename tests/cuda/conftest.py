"""The CUDA stand-in's tests: the ``fake_cuda`` fixture itself lives in tests/conftest.py (other
folders' tests run on the stand-in through the ``device`` fixture)."""
