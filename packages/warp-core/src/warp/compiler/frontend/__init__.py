"""Frontend: Python AST of a kernel or function -> typed IR (:mod:`warp.compiler.ir`).

The entry points are :func:`warp.compiler.frontend.translator.build_kernel` and
:func:`~warp.compiler.frontend.translator.build_function`. This package module imports none of
its modules, so that importing one of them (``type_handlers``, ``composite``) does not pull in
the whole frontend.
"""
