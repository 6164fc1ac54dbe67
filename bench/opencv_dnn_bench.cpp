// OpenCV DNN's Darknet importer on the same cfg and weights, timed like `netwright-cli bench`:
// DNN_BACKEND_OPENCV on the CPU, 2 warm-up runs, then N timed runs; median, minimum, peak RSS.
//   opencv_dnn_bench CFG WEIGHTS RUNS THREADS
#include "median.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <opencv2/core/utility.hpp>
#include <opencv2/dnn.hpp>
#include <sys/resource.h>
#include <vector>

int main(int argc, char** argv)
{
    if (argc != 5) {
        std::fprintf(stderr, "usage: %s CFG WEIGHTS RUNS THREADS\n", argv[0]);
        return 2;
    }
    rusage start{};
    getrusage(RUSAGE_SELF, &start); // the process with its libraries, before the network exists
    cv::setNumThreads(std::atoi(argv[4]));
    cv::dnn::Net net = cv::dnn::readNetFromDarknet(argv[1], argv[2]);
    net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
    net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
    // The input size comes from the cfg's [net]; read it back from the first layer's shape.
    std::vector<cv::dnn::MatShape> inShapes, outShapes;
    int width = 416, height = 416, channels = 3;
    for (const char* key : {"width=", "height=", "channels="}) {
        FILE* f = std::fopen(argv[1], "r");
        char line[256];
        while (f && std::fgets(line, sizeof line, f))
            if (std::strncmp(line, key, std::strlen(key)) == 0) {
                const int value = std::atoi(line + std::strlen(key));
                (key[0] == 'w' ? width : key[0] == 'h' ? height : channels) = value;
                break;
            }
        if (f)
            std::fclose(f);
    }
    cv::Mat blob({1, channels, height, width}, CV_32F);
    cv::randu(blob, 0.0f, 1.0f);
    std::vector<cv::Mat> outs;
    const std::vector<cv::String> names = net.getUnconnectedOutLayersNames();
    for (int i = 0; i < 2; ++i) {
        net.setInput(blob);
        net.forward(outs, names);
    }
    std::vector<double> times;
    for (int i = 0; i < std::atoi(argv[3]); ++i) {
        const auto start = std::chrono::steady_clock::now();
        net.setInput(blob);
        net.forward(outs, names);
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
