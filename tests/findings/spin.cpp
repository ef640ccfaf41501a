// The program of tests/live_findings.rs: `spin THREADS SECONDS CPU_FILE
// [THEN_THREADS THEN_SECONDS]` keeps THREADS threads busy computing for
// SECONDS seconds (then THEN_THREADS for THEN_SECONDS), writes the CPU
// seconds the process got into CPU_FILE, then exits. One thread on a
// machine of two CPUs, in a program that runs two at other times, is
// serialized work; two are not, when the machine gives them two CPUs (the
// test reads CPU_FILE to know); nor is a program of one thread only.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <cstdlib>
#include <thread>
#include <vector>

// Busy until `until`; the result is printed so the loop is not optimized away.
static double spin_worker(std::chrono::steady_clock::time_point until) {
    double sum = 0;
    while (std::chrono::steady_clock::now() < until) {
        for (int i = 1; i < 100000; ++i) {
            sum += 1.0 / i;
        }
    }
    return sum;
}

// THREADS threads busy for SECONDS seconds; the sum of their results.
static double spin(int threads, double seconds) {
    auto until = std::chrono::steady_clock::now() +
                 std::chrono::milliseconds(static_cast<long>(seconds * 1000));
    std::vector<double> sums(threads);
    std::vector<std::thread> running;
    for (int t = 1; t < threads; ++t) {
        running.emplace_back([&, t] { sums[t] = spin_worker(until); });
    }
    sums[0] = spin_worker(until);
    for (auto& thread : running) {
        thread.join();
    }
    double total = 0;
    for (double sum : sums) {
        total += sum;
    }
    return total;
}

int main(int argc, char** argv) {
    if (argc != 4 && argc != 6) {
        std::fprintf(stderr, "usage: spin THREADS SECONDS CPU_FILE [THEN_THREADS THEN_SECONDS]\n");
        return 2;
    }
    int threads = std::atoi(argv[1]);
    double total = spin(threads, std::atof(argv[2]));
    if (argc == 6) {
        total += spin(std::atoi(argv[4]), std::atof(argv[5]));
    }
    std::printf("%d threads: %.1f\n", threads, total);
    std::FILE* cpu = std::fopen(argv[3], "w");
    if (cpu == nullptr) {
        std::perror(argv[3]);
        return 1;
    }
    std::fprintf(cpu, "%.3f\n", static_cast<double>(std::clock()) / CLOCKS_PER_SEC);
    return std::fclose(cpu) == 0 ? 0 : 1;
}
