// emu_main.h: the program around one emulated launcher. It reads the buffers and sizes the Python side
// wrote, places each buffer against a guard page (inputs read-only), calls the launcher once, checks
// that nothing was written next to an output, and writes the outputs back.
#pragma once
#include "cuda_emu.h"

static void __emu_call(void** p, const int64_t* s);

static int64_t emu_read_i64(FILE* f) {
    int64_t v;
    if (fread(&v, 8, 1, f) != 1) emu::fail("truncated argument file");
    return v;
}

int main(int argc, char** argv) {
    if (argc != 3) { fprintf(stderr, "usage: %s ARGS OUT\n", argv[0]); return 2; }
    emu::install_handlers();
    FILE* f = fopen(argv[1], "rb");
    if (!f) emu::fail("cannot open %s", argv[1]);
    int64_t nbuf = emu_read_i64(f);
    std::vector<int64_t> nbytes(nbuf), is_input(nbuf);
    std::vector<std::string> names(nbuf);
    for (int64_t i = 0; i < nbuf; ++i) {
        nbytes[i] = emu_read_i64(f); is_input[i] = emu_read_i64(f);
        int64_t len = emu_read_i64(f); names[i].resize(len);
        if (len && fread(&names[i][0], 1, len, f) != (size_t)len) emu::fail("truncated argument file");
    }
    int64_t nsize = emu_read_i64(f);
    std::vector<int64_t> sizes(nsize + 1);
    for (int64_t i = 0; i < nsize; ++i) sizes[i] = emu_read_i64(f);
    std::vector<void*> ptrs(nbuf + 1);
    std::vector<emu::Region*> regs(nbuf);
    for (int64_t i = 0; i < nbuf; ++i) {
        ptrs[i] = emu::guarded_alloc(nbytes[i], names[i].c_str(), (int)i);
        regs[i] = &emu::regions.back();
        if (is_input[i]) {
            if (nbytes[i] && fread(ptrs[i], 1, nbytes[i], f) != (size_t)nbytes[i]) emu::fail("truncated input %s", names[i].c_str());
            regs[i]->input = true;
            mprotect(regs[i]->map + emu::page, regs[i]->map_len - 2 * emu::page, PROT_READ);
        }
    }
    fclose(f);
    __emu_call(ptrs.data(), sizes.data());
    for (int64_t i = 0; i < nbuf; ++i) {
        if (is_input[i]) continue;
        emu::Region* r = regs[i];
        for (char* p = r->map + emu::page; p < r->map + r->map_len - emu::page; ++p) {
            if (p >= r->base && p < r->base + r->nbytes) { p = r->base + r->nbytes - 1; continue; }
            if ((unsigned char)*p != 0xff)
                emu::fail("out-of-bounds write to %s (param %lld) at byte %lld (size %lld)", names[i].c_str(),
                          (long long)i, (long long)(p - r->base), (long long)r->nbytes);
        }
    }
    FILE* o = fopen(argv[2], "wb");
    if (!o) emu::fail("cannot write %s", argv[2]);
    for (int64_t i = 0; i < nbuf; ++i)
        if (!is_input[i] && nbytes[i]) fwrite(ptrs[i], 1, nbytes[i], o);
    fclose(o);
    return 0;
}
