// The safety program of tests/live_heap.rs: 16 threads allocate, fill,
// check and free in parallel through every wrapped function, with a fixed
// random sequence each, and print what they saw; then a forked child
// allocates and frees, and another execs a shell. The output must be the
// same with and without the heap sampler preloaded.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <malloc.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

struct Result {
    uint64_t checksum = 0;
    uint64_t errors = 0;
};

static uint64_t next(uint64_t& state) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static void work(int thread, Result* result) {
    uint64_t state = 0x9e3779b97f4a7c15ull * (thread + 1);
    struct Slot {
        unsigned char* ptr = nullptr;
        size_t size = 0;
        unsigned char fill = 0;
    };
    Slot slots[64];
    for (int i = 0; i < 30'000; ++i) {
        Slot& slot = slots[next(state) % 64];
        if (slot.ptr) {
            for (size_t at = 0; at < slot.size; at += 61) {
                if (slot.ptr[at] != slot.fill) ++result->errors;
            }
            result->checksum += slot.size * slot.fill;
        }
        size_t size = 1 + next(state) % ((next(state) % 8 == 0) ? 300'000 : 2000);
        unsigned char fill = static_cast<unsigned char>(next(state));
        unsigned char* ptr = nullptr;
        switch (next(state) % 7) {
        case 0:
            std::free(slot.ptr);
            ptr = static_cast<unsigned char*>(std::malloc(size));
            break;
        case 1:
            std::free(slot.ptr);
            ptr = static_cast<unsigned char*>(std::calloc(size, 1));
            for (size_t at = 0; at < size; at += 61) {
                if (ptr[at] != 0) ++result->errors;
            }
            break;
        case 2:
            ptr = static_cast<unsigned char*>(std::realloc(slot.ptr, size));
            break;
        case 3: {
            std::free(slot.ptr);
            void* aligned = nullptr;
            if (posix_memalign(&aligned, 64, size) != 0) ++result->errors;
            if (reinterpret_cast<uintptr_t>(aligned) % 64 != 0) ++result->errors;
            ptr = static_cast<unsigned char*>(aligned);
            break;
        }
        case 4:
            std::free(slot.ptr);
            ptr = static_cast<unsigned char*>(aligned_alloc(256, (size + 255) / 256 * 256));
            if (reinterpret_cast<uintptr_t>(ptr) % 256 != 0) ++result->errors;
            break;
        case 5:
            std::free(slot.ptr);
            ptr = static_cast<unsigned char*>(memalign(32, size));
            if (reinterpret_cast<uintptr_t>(ptr) % 32 != 0) ++result->errors;
            break;
        default:
            delete[] slot.ptr;
            ptr = new unsigned char[size];
            break;
        }
        if (!ptr) {
            ++result->errors;
            slot = Slot{};
            continue;
        }
        std::memset(ptr, fill, size);
        slot = Slot{ptr, size, fill};
    }
    for (Slot& slot : slots) std::free(slot.ptr);
}

int main() {
    std::vector<Result> results(16);
    std::vector<std::thread> threads;
    for (int thread = 0; thread < 16; ++thread) {
        threads.emplace_back(work, thread, &results[thread]);
    }
    for (auto& thread : threads) thread.join();
    for (int thread = 0; thread < 16; ++thread) {
        std::printf("thread %d checksum %llu errors %llu\n", thread,
                    static_cast<unsigned long long>(results[thread].checksum),
                    static_cast<unsigned long long>(results[thread].errors));
    }
    std::fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        Result result;
        work(99, &result);
        std::printf("forked child checksum %llu errors %llu\n",
                    static_cast<unsigned long long>(result.checksum),
                    static_cast<unsigned long long>(result.errors));
        std::fflush(stdout);
        _exit(result.errors == 0 ? 0 : 1);
    }
    int status = 0;
    waitpid(child, &status, 0);
    std::printf("forked child exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    std::fflush(stdout);
    child = fork();
    if (child == 0) {
        execl("/bin/sh", "sh", "-c", "echo exec child ok", static_cast<char*>(nullptr));
        _exit(127);
    }
    waitpid(child, &status, 0);
    std::printf("exec child exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 0;
}
