"""A notebook-first workbench for multi-turn reinforcement learning of LLMs that write fast, correct CUDA kernels

Modules:

- `cudarl_wb.gpu_planner`: Which GPU does what: the inventory, the memory arithmetic, the placement of rollout, agents, reference, evaluator and trainer, as a table, a picture, environments and Ray/verl settings."""

__version__ = "0.0.1"
