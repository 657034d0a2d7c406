"""Hostile candidates for the compile side, one per spelling of each class of attack.

`cases(secret)` builds them around the path of a secret file (whose content must never come back);
each case says how it must be judged: `reject` (refused with one of `codes`), `fail` (not built: nvcc
refused or was stopped) or `any` (the verdict does not matter, only time, memory and secrecy).
`check=False` cases go to nvcc unchecked, to show what the confinement alone holds."""

RELU_TOP = '#include <cuda_runtime.h>\n#include <stdint.h>\n#include <stdio.h>\n'
KERNEL = ('__global__ void relu_kernel(const float* x, float* y, int64_t n) {\n'
          '    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f; }\n')
LAUNCH = ('extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {\n    %s\n'
          '    relu_kernel<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);\n}\n')


def relu(top='', host='', bottom=''):
    "A correct relu candidate with `top` at file scope before the kernel, `host` in the launcher, `bottom` after it."
    return RELU_TOP + top + '\n' + KERNEL + LAUNCH % host + bottom


def case(cls, name, source, expect, codes=(), timeout=30, check=True, task='relu'):
    return dict(cls=cls, name=name, source=source, expect=expect, codes=set(codes), timeout=timeout, check=check, task=task)


def cases(secret: str) -> list[dict]:
    inc = f'#include "{secret}"\n'
    out = [
        # 1. the check and the preprocessor read differently
        case('reader', 'form feed before #', relu(top='\f' + inc), 'reject', ['control-character']),
        case('reader', 'vertical tab before #', relu(top='\v' + inc), 'reject', ['control-character']),
        case('reader', 'lone carriage return', relu(top='// note\r' + inc), 'reject', ['control-character']),
        case('reader', 'backslash form feed newline', relu(top='int pad; // \\\f\n' + inc), 'reject', ['control-character']),
        case('reader', "unterminated ' in #if 0", relu(top="#if 0\n'/*\n#endif\n" + inc + '// */\n'), 'reject',
             ['unterminated-literal', 'bad-include']),
        case('reader', 'hidden #define __device__', relu(top='\f#define __device__\n'), 'reject', ['control-character']),
        case('reader', '#define __device__', relu(top='#define __device__\n'), 'reject', ['bad-macro']),
        case('reader', 'escaped identifier', relu(host='sys\\u0074em("id");'), 'reject', ['escaped-identifier']),
        case('reader', 'trigraph #', relu(top='??=' + inc), 'reject', ['trigraph']),
        case('reader', '#include of a secret', relu(top=inc), 'reject', ['bad-include']),
        case('reader', '#include of a secret, unchecked', relu(top=inc), 'fail', check=False),
        # 2. probing and embedding files
        case('probe', '__has_include', relu(top=f'#if __has_include("{secret}")\n#error found\n#endif\n'), 'reject', ['has-include']),
        case('probe', '__has_include_next', relu(top=f'#if __has_include_next(<{secret}>)\n#endif\n'), 'reject', ['has-include']),
        case('embed', 'host asm .incbin', relu(bottom=f'asm(".incbin \\"{secret}\\"");\n'), 'reject', ['forbidden-asm', 'incbin']),
        case('embed', '.incbin, unchecked', relu(bottom=f'asm(".section .rodata\\n.incbin \\"{secret}\\"\\n.text");\n'), 'fail', check=False),
        case('embed', '#embed', relu(top=f'const char s[] = {{\n#embed "{secret}"\n}};\n'), 'reject', ['bad-directive']),
        # 3. load-time host code
        *[case('load-time', spelling, relu(top=f'{spelling} static void at_load() {{ printf("x"); }}\n'), 'reject', ['forbidden-attribute'])
          for spelling in ['__attribute__((constructor))', '__attribute__((__constructor__))', '__attribute__((__destructor__))',
                           '__attribute__ ((destructor))', '[[gnu::constructor]]', '[[gnu::__constructor__]]', '[[using gnu: destructor]]']],
        case('load-time', '__section__(".init_array")',
             relu(top='static void at_load() { printf("x"); }\n'
                      'static void (*at_load_ptr)() __attribute__((__section__(".init_array"))) = at_load;\n'), 'reject', ['forbidden-attribute']),
        case('load-time', 'dynamic initialiser', relu(top='static int side() { printf("x"); return 1; }\nstatic int value = side();\n'),
             'reject', ['load-time-code']),
        case('load-time', 'global object with a constructor', relu(top='struct Boot { Boot() { printf("x"); } };\nstatic Boot boot;\n'),
             'reject', ['load-time-code']),
        case('load-time', 'constructor, unchecked', relu(top='__attribute__((constructor)) static void at_load() { printf("x"); }\n'),
             'any', check=False),
        # 4. the compiler's resources
        case('resources', 'exponential macro', relu(top='#define A(x) x x x x x x x x x x\n#define B(x) A(A(A(A(x))))\n'
                                                        '__global__ void k(float* y) { float s = y[0]; B(B(s = s * y[(int)s & 1023] + 1.f;)) y[1] = s; }\n'),
             'fail', timeout=10),
        case('resources', 'template recursion', relu(top='template <int N> struct R { static const int v = R<N - 1>::v + R<N - 2>::v; };\n'
                                                         'template <> struct R<0> { static const int v = 0; };\n'
                                                         'template <> struct R<1> { static const int v = 1; };\n'
                                                         'static const int deep = R<100000>::v;\n'), 'fail', timeout=10),
        case('resources', 'huge constant initialiser', relu(top='__device__ float table[1 << 26] = {1.f};\n'), 'any', timeout=10),
        # 5. parsing time: every part of the check is linear in the source's length
        case('parsing', '90,000-character identifier', relu(host='int ' + 'a' * 90_000 + ' = 1;'), 'any', timeout=10),
        case('parsing', '30,000 attribute brackets', relu(top='int x' + '[[' * 30_000 + ';\n'), 'any', timeout=10),
        case('parsing', '20,000 unclosed comments', relu(bottom='/* ' * 20_000), 'reject', ['unterminated-literal'], timeout=10),
        case('parsing', '20,000 launches without end', relu(host='k<<<' * 20_000), 'any', timeout=10),
        case('parsing', '10,000 initialisers without ;', relu(host='int v = ' * 10_000), 'any', timeout=10),
        case('parsing', '6,000 nested namespaces', 'namespace a {' * 6_000 + relu() + '}' * 6_000, 'any', timeout=10),
    ]
    return out


def leaks(r, secret_text: str) -> list[str]:
    "Where the secret's content shows in result `r`: its log, diagnostics, issues or library."
    where = []
    if secret_text in (r.log or ''): where.append('log')
    if any(secret_text in d.message for d in r.diagnostics): where.append('diagnostics')
    if any(secret_text in i.message for i in r.issues): where.append('issues')
    if r.lib_path:
        from pathlib import Path
        if secret_text.encode() in Path(r.lib_path).read_bytes(): where.append('library')
    return where


def judge(c: dict, r, seconds: float, secret_text: str) -> tuple[bool, str]:
    "Whether result `r` (after `seconds`) is what case `c` expects, and why not."
    codes = {i.code for i in r.issues}
    if (where := leaks(r, secret_text)): return False, f'the secret is in the {", ".join(where)}'
    if seconds > c['timeout'] + 5: return False, f'took {seconds:.1f} s with a time-out of {c["timeout"]} s'
    if c['expect'] == 'reject' and not (str(r.verdict) == 'rejected-by-static-check' and codes & c['codes']):
        return False, f'expected a refusal with one of {sorted(c["codes"])}, got {r.verdict} {sorted(codes)}'
    if c['expect'] == 'fail' and r.ok: return False, 'expected no library, got one'
    return True, ''


def reason(r) -> str:
    "The named reason of a result: its issue codes, else its first error, else its verdict."
    if r.issues: return ', '.join(dict.fromkeys(i.code for i in r.issues))
    errs = [d.message for d in r.diagnostics if d.severity == 'error']
    return errs[0][:70] if errs else str(r.verdict)
