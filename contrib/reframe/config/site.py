# A ReFrame site configuration for mpibench, after `make install
# PREFIX=/opt/mpibench` (or a Spack or EasyBuild installation: point
# MPIBENCH_PREFIX at it, or load its module and leave MPIBENCH_PREFIX unset).
#
#   reframe -C contrib/reframe/config/site.py --system local \
#       -c contrib/reframe/mpibench.py -r
#   reframe -C contrib/reframe/config/site.py --system cluster:compute \
#       -c contrib/reframe/mpibench.py -r
#
# The environment "mpibench" puts bin/ (mpibench, IMB-MPI1, ...) and OMB's
# libexec/osu-micro-benchmarks/mpi/{pt2pt,collective,one-sided,startup} on
# PATH, so that checks written for IMB and OMB (ReFrame's own hpctestlib
# osu_run) find the programs by name. Edit the systems for a real site:
# hostnames, the partition's access (sbatch options), max_jobs.

import os

prefix = os.environ.get('MPIBENCH_PREFIX', '/opt/mpibench')
omb = os.path.join(prefix, 'libexec', 'osu-micro-benchmarks', 'mpi')
path = [os.path.join(prefix, 'bin')] + [
    os.path.join(omb, d)
    for d in ('pt2pt', 'pt2pt/persistent', 'congestion', 'collective',
              'one-sided', 'startup')
]
# A directory before all of them (e.g. an mpirun of another MPI).
if os.environ.get('MPIBENCH_EXTRA_PATH'):
    path.insert(0, os.environ['MPIBENCH_EXTRA_PATH'])

site_configuration = {
    'systems': [
        {
            'name': 'local',
            'descr': 'This machine: the local scheduler, mpirun',
            'hostnames': ['.*'],
            'modules_system': 'nomod',
            'partitions': [
                {
                    'name': 'cpu',
                    'scheduler': 'local',
                    'launcher': 'mpirun',
                    'environs': ['mpibench'],
                    'max_jobs': 1,
                }
            ],
        },
        {
            'name': 'cluster',
            'descr': 'A Slurm cluster: sbatch, srun',
            'hostnames': ['.*'],
            'modules_system': 'nomod',
            'partitions': [
                {
                    'name': 'compute',
                    'scheduler': os.environ.get('MPIBENCH_RFM_SCHEDULER',
                                                'slurm'),
                    'launcher': 'srun',
                    'access': os.environ.get('MPIBENCH_RFM_ACCESS',
                                             '').split(),
                    'environs': ['mpibench'],
                    'max_jobs': 4,
                }
            ],
        },
    ],
    'environments': [
        {
            'name': 'mpibench',
            'env_vars': [['PATH', ':'.join(path + ['$PATH'])]],
        }
    ],
}
