"""A notebook-first workbench for multi-turn reinforcement learning of LLMs that write fast, correct CUDA kernels

Modules:

- `cudarl_wb.canary`: Sending a share of the requests to a candidate checkpoint, and deciding after every request whether to raise its share, keep it, or take it back.
- `cudarl_wb.gpu_planner`: Which GPU does what: the inventory, the memory arithmetic, the placement of rollout, agents, reference, evaluator and trainer, as a table, a picture, environments and Ray/verl settings.
- `cudarl_wb.serve`: A checkpoint behind HTTP: the multi-turn loop as one request, each agent as an OpenAI-style chat model, and a candidate checkpoint rolled out beside it by the canary of `15b_canary`.
- `cudarl_wb.verl_backend`: The workbench's tasks, reward and two-agent loop in verl's terms: parquet data, a reward function, a GRPO configuration from the GPU planner, and a verl agent loop, for runs past one GPU on Ray."""

__version__ = "0.0.1"
