"""Raises at import, as a plugin with a missing dependency would."""

raise ImportError("warp_broken_plugin needs a library that is not installed")
