// pjreddie's Darknet (Debian's libdarknet, single-threaded) on the same cfg and weights, timed like
// `netwright-cli bench`.   darknet_bench CFG WEIGHTS RUNS
#include "median.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sys/resource.h>
#include <vector>

extern "C" {
#include <darknet.h>
}

int main(int argc, char** argv)
{
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s CFG WEIGHTS RUNS\n", argv[0]);
        return 2;
    }
    rusage start{};
    getrusage(RUSAGE_SELF, &start); // the process with its libraries, before the network exists
    network* net = load_network(argv[1], argv[2], 0);
    set_batch_network(net, 1);
    std::vector<float> input(size_t(net->inputs));
    for (float& v : input)
        v = float(std::rand()) / float(RAND_MAX);
    for (int i = 0; i < 2; ++i)
        network_predict(net, input.data());
    std::vector<double> times;
    for (int i = 0; i < std::atoi(argv[3]); ++i) {
        const auto start = std::chrono::steady_clock::now();
        network_predict(net, input.data());
        times.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(times.begin(), times.end());
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    std::printf("{\"median_ms\": %.3f, \"min_ms\": %.3f, \"peak_rss_mb\": %.1f, \"baseline_rss_mb\": %.1f}\n",
                nw::bench::median(times), times.front(), double(usage.ru_maxrss) / 1024.0,
                double(start.ru_maxrss) / 1024.0);
    return 0;
}
