"""Runtimes: devices, the CPU JIT and launcher, the on-disk kernel cache."""
