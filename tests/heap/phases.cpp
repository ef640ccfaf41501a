// The accuracy program of tests/live_heap.rs: a leak of 10 MB, a phase
// that holds 200 MB (and sleeps, so the RSS sampler sees its peak), a
// phase that churns 2 GB and holds nothing. Each phase is a function of
// its own, so that the report can tell them apart by stack.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>
#include <thread>
#include <vector>

static void* volatile sink;

__attribute__((noinline)) static void touch(void* ptr, size_t size) {
    std::memset(ptr, 0x5a, size);
    sink = ptr;
}

static std::vector<void*> leaked;

// 10 MB never freed: 160 pieces of 64 KiB (10 MiB) is near, so 10,000,000
// bytes are 152 pieces of 65,536 plus one of 38,528.
__attribute__((noinline)) void leak_phase() {
    size_t left = 10'000'000;
    while (left > 0) {
        size_t size = left < 65536 ? left : 65536;
        void* ptr = std::malloc(size);
        touch(ptr, size);
        leaked.push_back(ptr);
        left -= size;
    }
}

// 200 MB held: 100 MB in 256 KB pieces (operator new) and 100 MB in
// 4000-byte pieces (malloc), held for 1.5 s, then freed: long enough
// for the RSS sampler to see the plateau on a loaded machine (held for
// 400 ms at load 8, the peak RSS sample fell in the ramp, at 84% of it).
__attribute__((noinline)) void hold_phase() {
    std::vector<char*> big;
    std::vector<void*> small;
    big.reserve(400);
    small.reserve(25'000);
    for (int i = 0; i < 400; ++i) {
        char* ptr = new char[250'000];
        touch(ptr, 250'000);
        big.push_back(ptr);
    }
    for (int i = 0; i < 25'000; ++i) {
        void* ptr = std::malloc(4000);
        touch(ptr, 4000);
        small.push_back(ptr);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    for (char* ptr : big) delete[] ptr;
    for (void* ptr : small) std::free(ptr);
}

// 2 GB churned, nothing held: 250 pieces of 8 MB, each freed at once, and
// 20,000 of 4000 bytes in batches of 100.
__attribute__((noinline)) void churn_phase() {
    for (int i = 0; i < 250; ++i) {
        void* ptr = std::malloc(8'000'000);
        touch(ptr, 4096);
        std::free(ptr);
    }
    void* batch[100];
    for (int round = 0; round < 200; ++round) {
        for (auto& ptr : batch) {
            ptr = std::malloc(4000);
            touch(ptr, 4000);
        }
        for (void* ptr : batch) std::free(ptr);
    }
}

int main() {
    leaked.reserve(200);
    leak_phase();
    hold_phase();
    churn_phase();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return 0;
}
