# mpibench's ReFrame checks: they run mpibench's suites and read its JSON
# (never its tables).
#
#   reframe -C contrib/reframe/config/site.py -c contrib/reframe/mpibench.py -r
#
# Sanity: mpibench's exit code 0, the JSON document complete, its status
# "ok" and 0 validation errors in every row (the run validates with --check).
# Performance: per benchmark, process count and size, the median time and
# the bounds of its 95 % confidence interval (t_median_us, ci95_lo_us,
# ci95_hi_us of the row at the run's largest process count), named
# BENCHMARK_SIZEB_{median,ci95_lo,ci95_hi}; the test's name carries procs.
# References are ReFrame's (value, lower, upper, unit) tuples; a site gives
# them in a JSON file (variable reference_file):
#
#   {"PingPong_1024B_median": [1.5, null, 0.5, "us"], ...}
#
# and ReFrame fails the check when a figure falls outside.
#
# Parameters (reframe -P NAME=V1,V2 ... changes them): suite_benchmarks
# (the suite and its benchmarks), procs (the process counts) and launches
# (mpibench --launches: launches > 1 make mpibench start the launches
# itself, through MPIBENCH_MPIEXEC or, inside a Slurm allocation, srun).
# Variables (reframe -S NAME=VALUE): sizes, iterations, mpibench (the
# executable), extra_opts (more mpibench options), reference_file.

import json
import os

import reframe as rfm
import reframe.utility.sanity as sn
import reframe.utility.typecheck as typ
from reframe.core.backends import getlauncher


class mpibench_base(rfm.RunOnlyRegressionTest):
    '''A run of mpibench: one suite, its benchmarks, one process count.'''

    #: The suite (mpibench list shows them) and its benchmarks.
    suite = variable(str, value='imb')
    benchmarks = variable(typ.List[str], value=['PingPong'])
    #: Message sizes in bytes (--sizes).
    sizes = variable(typ.List[int], value=[0, 1024, 65536])
    #: Repetitions per size (--iter); 0: mpibench's own policy.
    iterations = variable(int, value=100)
    #: Independent launches combined into one result (--launches).
    num_launches = variable(int, value=1)
    #: The mpibench executable (on PATH, or a path).
    mpibench = variable(str, value='mpibench')
    #: More mpibench options (e.g. --stats, --timeout 600).
    extra_opts = variable(typ.List[str], value=[])
    #: A JSON file of references: {"VARIABLE": [value, lower, upper, unit]}.
    reference_file = variable(str, value='')
    #: Where mpibench writes its results, in the stage directory.
    json_file = variable(str, value='mpibench.json')

    valid_systems = ['*']
    valid_prog_environs = ['*']
    num_tasks = 2
    tags = {'mpibench'}

    @run_before('run')
    def set_command(self):
        opts = ['run', '--suite', self.suite, *self.benchmarks,
                '--sizes', ','.join(str(s) for s in self.sizes),
                '--check', '--json', self.json_file, '-q']
        if self.iterations > 0:
            opts += ['--iter', str(self.iterations)]
        if self.num_launches > 1:
            # mpibench starts its launches itself (mpiexec or srun).
            self.job.launcher = getlauncher('local')()
            opts += ['-n', str(self.num_tasks),
                     '--launches', str(self.num_launches)]
        self.executable = self.mpibench
        self.executable_opts = opts + list(self.extra_opts)

    @run_before('run')
    def set_performance(self):
        self.perf_variables = {}
        for bench in self.benchmarks:
            for size in self.sizes:
                key = f'{bench}_{size}B'
                for stat, field in (('median', 't_median_us'),
                                    ('ci95_lo', 'ci95_lo_us'),
                                    ('ci95_hi', 'ci95_hi_us')):
                    self.perf_variables[f'{key}_{stat}'] = \
                        sn.make_performance_function(
                            self._figure(bench, size, field), 'us')
        if self.reference_file:
            with open(self.reference_file) as f:
                refs = json.load(f)
            self.reference = {
                '*': {k: tuple(v) for k, v in refs.items()
                      if k in self.perf_variables}
            }

    def _results(self):
        path = os.path.join(self.stagedir, self.json_file)
        with open(path) as f:
            return json.load(f)

    @deferrable
    def _figure(self, bench, size, field):
        runs = [res for res in self._results()['results']
                if res['benchmark'] == bench]
        if runs:
            top = max(res['processes'] for res in runs)
            rows = [row for res in runs if res['processes'] == top
                    for row in res['rows'] if row['bytes'] == size]
            if rows:
                return rows[0][field]
        raise sn.SanityError(
            f'no row of {bench} at {size} bytes in {self.json_file}')

    @deferrable
    def _errors(self):
        return sum(row.get('errors') or 0
                   for res in self._results()['results']
                   for row in res['rows'])

    @deferrable
    def _status(self):
        return self._results().get('status')

    @sanity_function
    def validate(self):
        return sn.all([
            sn.assert_eq(self.job.exitcode, 0,
                         msg='mpibench exited with {0}'),
            sn.assert_true(sn.path_exists(
                os.path.join(self.stagedir, self.json_file)),
                msg=f'no {self.json_file}'),
            sn.assert_eq(self._status(), 'ok',
                         msg='mpibench status {0}, not ok'),
            sn.assert_eq(self._errors(), 0,
                         msg='{0} validation errors'),
        ])


@rfm.simple_test
class mpibench_check(mpibench_base):
    '''mpibench's suites, as a nightly check runs them.'''

    #: (suite, benchmarks) pairs.
    suite_benchmarks = parameter([
        ('imb', ('PingPong', 'Allreduce')),
        ('osu', ('osu_latency', 'osu_allreduce')),
    ], fmt=lambda x: x[0])
    #: Process counts.
    procs = parameter([2], type=int, loggable=True)
    #: mpibench --launches.
    launches = parameter([1], type=int, loggable=True)

    @run_after('init')
    def apply_parameters(self):
        self.suite, benchmarks = self.suite_benchmarks
        self.benchmarks = list(benchmarks)
        self.num_tasks = self.procs
        self.num_launches = self.launches
