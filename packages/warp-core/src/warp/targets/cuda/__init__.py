"""The CUDA target: PTX from LLVM's NVPTX backend, run through the CUDA driver.

See :class:`~warp.targets.cuda.target.CudaTarget`.
"""
