"""The sandbox a lane runs in under `--lock-tree` and `--confine`: one bubblewrap plan.

- `plan`: the bwrap argv of the lock (the whole filesystem, the caller's tree read-only on
  top) and of confinement (an empty root with only an allow list mounted), pure;
- `confine`: the allow list itself (system, lane install, private state, environment), pure;
- `mounts`: the mount table and `.git` files read for the lock, pure;
- `host`: what touches the machine (finding bwrap, reading the mount table and the lane's
  install, the trial run).

Nothing here is imported by a dispatch without `--lock-tree`, `--lock-only` or `--confine`.
"""
