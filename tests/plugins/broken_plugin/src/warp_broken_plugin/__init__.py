"""A deliberately broken warp plugin (its plugin module raises at import)."""
