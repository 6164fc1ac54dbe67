// pjreddie's Darknet (Debian's libdarknet, single-threaded) training the same cfg: train_network on
// one batch of random 0..1 images and one-hot labels, timed.   darknet_train_bench CFG ITERATIONS
#include "median.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

extern "C" {
#include <darknet.h>
}

int main(int argc, char** argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s CFG ITERATIONS\n", argv[0]);
        return 2;
    }
    network* net = parse_network_cfg(argv[1]);
    const int batch = net->batch * net->subdivisions;
    const int classes = net->layers[net->n - 1].outputs;
    data d{};
    d.X = make_matrix(batch, net->inputs);
    d.y = make_matrix(batch, classes);
    for (int i = 0; i < batch; ++i) {
        for (int j = 0; j < net->inputs; ++j)
            d.X.vals[i][j] = float(std::rand()) / float(RAND_MAX);
        d.y.vals[i][std::rand() % classes] = 1;
    }
    train_network(net, d); // warm-up
    std::vector<double> rates;
    for (int i = 0; i < std::atoi(argv[2]); ++i) {
        const auto start = std::chrono::steady_clock::now();
        train_network(net, d);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        rates.push_back(batch / seconds);
    }
    std::sort(rates.begin(), rates.end());
    std::printf("{\"images_per_sec\": %.1f}\n", nw::bench::median(rates));
    return 0;
}
