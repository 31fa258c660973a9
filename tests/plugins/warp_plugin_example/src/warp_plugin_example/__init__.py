"""Example third-party plugin for warp: adds ``wp.smooth_relu`` and ``wp.fma3`` kernel builtins."""

# warp first: its import registers every plugin, this one included (docs/plugins.md, section 1)
import warp  # noqa: F401
