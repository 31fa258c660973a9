"""The kernel compiler: frontend (AST -> typed IR), passes, lowering to LLVM, code generation."""
