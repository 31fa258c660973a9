"""Example third-party plugin for warp: adds ``wp.smooth_relu`` and ``wp.fma3`` kernel builtins."""
