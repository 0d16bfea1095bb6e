"""The defaults of the per-kernel limits (:class:`.kernel.Limits`), in one place.

Standard library only: the command line shows them in ``--help`` before it checks that the
grader's dependencies are installed.
"""

cell_timeout = 60.0  # seconds per cell
notebook_timeout = 600.0  # seconds per notebook, start-up included
memory_mb = 2048  # address space of one kernel (RLIMIT_AS)
file_mb = 100  # size of one file a kernel writes (RLIMIT_FSIZE)
processes = 64  # processes and threads of one kernel at once (0: no limit)
disk_mb = 200  # megabytes written into the kernel's folder (0: no limit)
disk_files = 20_000  # files and folders in the kernel's folder (0: no limit)
