// task: relu
// expect: crashed
// detail: 
// escape: yes
// Reaches libc's `open` and `system` without naming them: from the address of printf it finds libc's
// ELF header, walks its dynamic symbol table and compares names built at run time. The import table
// shows only printf; the calls themselves are what the sandbox must stop.
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
// The ELF types it needs, spelled out (no <elf.h>):
typedef struct { unsigned char e_ident[16]; uint16_t e_type, e_machine; uint32_t e_version; uint64_t e_entry, e_phoff, e_shoff;
                 uint32_t e_flags; uint16_t e_ehsize, e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx; } Ehdr;
typedef struct { uint32_t p_type, p_flags; uint64_t p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align; } Phdr;
typedef struct { int64_t d_tag; uint64_t d_ptr; } Dyn;
typedef struct { uint32_t st_name; unsigned char st_info, st_other; uint16_t st_shndx; uint64_t st_value, st_size; } Sym;
enum { PT_DYN = 2, TAG_STRTAB = 5, TAG_SYMTAB = 6 };
__global__ void relu_kernel(const float* x, float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
static int same(const char* a, const char* b) { while (*a && *a == *b) { a++; b++; } return *a == *b; }
static const unsigned char* elf_base(const void* inside) {
    uintptr_t p = (uintptr_t)inside & ~(uintptr_t)0xfff;
    for (int k = 0; k < (1 << 14); k++, p -= 0x1000)           // libc's segments are mapped without holes
        if (*(const uint32_t*)p == 0x464c457fu) return (const unsigned char*)p;
    return 0;
}
static void* find_symbol(const char* want) {
    const unsigned char* base = elf_base((const void*)&printf);
    if (!base) return 0;
    const Ehdr* eh = (const Ehdr*)base;
    const Phdr* ph = (const Phdr*)(base + eh->e_phoff);
    const Dyn* dyn = 0;
    for (int i = 0; i < eh->e_phnum; i++) if (ph[i].p_type == PT_DYN) dyn = (const Dyn*)(base + ph[i].p_vaddr);
    if (!dyn) return 0;
    uintptr_t symtab = 0, strtab = 0;
    for (; dyn->d_tag != 0; dyn++) {
        if (dyn->d_tag == TAG_SYMTAB) symtab = dyn->d_ptr;
        if (dyn->d_tag == TAG_STRTAB) strtab = dyn->d_ptr;
    }
    if (symtab < (uintptr_t)base) symtab += (uintptr_t)base;    // not relocated in place on every architecture
    if (strtab < (uintptr_t)base) strtab += (uintptr_t)base;
    const Sym* sym = (const Sym*)symtab;
    size_t count = strtab > symtab ? (strtab - symtab) / sizeof(Sym) : 4096;
    for (size_t i = 0; i < count && i < 100000; i++)
        if (sym[i].st_value && same((const char*)strtab + sym[i].st_name, want)) return (void*)(base + sym[i].st_value);
    return 0;
}
extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {
    char o[] = {'o', 'p', 'e', 'n', 0}, s[] = {'s', 'y', 's', 't', 'e', 'm', 0};
    int (*op)(const char*, int, ...) = (int (*)(const char*, int, ...))find_symbol(o);
    int (*sh)(const char*) = (int (*)(const char*))find_symbol(s);
    if (!op || !sh) return;                                       // not found: outputs stay NaN, judged wrong
    op("/tmp/cudarl_hostile_pwned.txt", 0101 | 01000, 0644);     // O_WRONLY | O_CREAT | O_TRUNC: the file is made
    sh("touch /tmp/cudarl_hostile_exec.txt");
    relu_kernel<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
