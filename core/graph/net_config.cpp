#include "graph/net_config.h"

#include "graph/shape.h"

#include <algorithm>
#include <limits>

namespace nw {

const std::vector<std::string>& learningRatePolicies()
{
    static const std::vector<std::string> names = {"constant", "step",    "steps",  "exp",
                                                   "poly",     "sigmoid", "random", "sgdr"};
    return names;
}

NetConfig NetConfig::parse(cfg::SectionReader& r)
{
    NetConfig n;
    n.batch = r.getInt("batch", 1);
    n.learningRate = r.getFloat("learning_rate", 0.001f);
    n.momentum = r.getFloat("momentum", 0.9f);
    n.decay = r.getFloat("decay", 0.0001f);
    n.subdivisions = r.getInt("subdivisions", 1);
    n.timeSteps = r.getInt("time_steps", 1);
    if (n.batch < 1)
        r.error("batch", "batch must be at least 1 (found " + std::to_string(n.batch) + ")");
    if (n.subdivisions < 1 || n.subdivisions > std::max(n.batch, 1))
        r.error("subdivisions", "subdivisions must be between 1 and batch=" + std::to_string(n.batch) +
                                    " (found " + std::to_string(n.subdivisions) + ")");
    if (n.timeSteps < 1)
        r.error("time_steps", "time_steps must be at least 1");
    if (n.batch >= 1 && n.subdivisions >= 1 && n.subdivisions <= n.batch && n.batch % n.subdivisions != 0)
        r.warning("subdivisions", "batch=" + std::to_string(n.batch) +
                                      " is not a multiple of subdivisions=" + std::to_string(n.subdivisions) +
                                      ": training refuses it (each pass would take batch / subdivisions = " +
                                      std::to_string(n.batch / n.subdivisions) +
                                      " images and leave the rest out)");
    // Darknet takes these as written; they are almost always typos, and training then diverges.
    if (!(n.learningRate >= 0))
        r.warning("learning_rate", "a negative learning rate climbs the loss instead of descending it");
    if (!(n.momentum >= 0 && n.momentum < 1))
        r.warning("momentum",
                  n.momentum == 1 // (it read "outside 0..1" of a 1)
                      ? "momentum=1 never forgets a gradient: the updates grow without bound "
                        "(below 1: 0.9 is usual)"
                      : "momentum outside 0..1 makes the updates grow without bound (0.9 is usual)");
    if (!(n.decay >= 0))
        r.warning("decay", "a negative decay grows the weights instead of shrinking them (0.0005 is usual)");
    n.adam = r.getFlag("adam", false);
    n.b1 = r.getFloat("B1", 0.9f);
    n.b2 = r.getFloat("B2", 0.999f);
    n.eps = r.getFloat("eps", 1e-7f);
    // (B1 = 1 zeroes Adam's bias correction: every weight became infinite at the first step)
    if (n.adam && !(n.b1 >= 0 && n.b1 < 1))
        r.error("B1", "B1 must be at least 0 and below 1 (Adam's first-moment decay; 0.9 is usual)");
    if (n.adam && !(n.b2 >= 0 && n.b2 < 1))
        r.error("B2", "B2 must be at least 0 and below 1 (Adam's second-moment decay; 0.999 is usual)");
    if (n.adam && !(n.eps > 0))
        r.error("eps", "eps must be above 0 (it keeps Adam's division finite; 1e-7 is Darknet's)");
    n.height = r.getInt("height", 0);
    n.width = r.getInt("width", 0);
    n.channels = r.getInt("channels", 0);
    // In 64 bits: a typo such as width=100000000 must be reported, not wrap around.
    const std::int64_t pixels = saturatingProduct({n.width, n.height, n.channels});
    const bool tooLarge = n.width > kMaxSide || n.height > kMaxSide || n.channels > kMaxSide ||
                          pixels > std::numeric_limits<std::int32_t>::max();
    // Each problem on the line of the key that has it (the first such of width, height, channels).
    const auto firstKey = [&](auto wrong) {
        return wrong(n.width)      ? "width"
               : wrong(n.height)   ? "height"
               : wrong(n.channels) ? "channels"
                                   : "inputs";
    };
    if (tooLarge)
        r.error(n.width > kMaxSide || n.height > kMaxSide || n.channels > kMaxSide
                    ? firstKey([](int v) { return v > kMaxSide; })
                    : "width",
                "the input " + std::to_string(n.width) + "x" + std::to_string(n.height) + "x" +
                    std::to_string(n.channels) + " is too large: sides are limited to " +
                    std::to_string(kMaxSide) + " and width x height x channels to 2^31 - 1");
    n.inputs = r.getInt("inputs", tooLarge ? 0 : int(pixels));
    if (tooLarge)
        n.width = n.height = n.channels = 0;
    if (n.width < 0 || n.height < 0 || n.channels < 0 || n.inputs < 0) {
        const char* key = firstKey([](int v) { return v < 0; });
        r.error(key, std::string(key) + " must not be negative (found " +
                         std::to_string(std::string_view(key) == "width"      ? n.width
                                        : std::string_view(key) == "height"   ? n.height
                                        : std::string_view(key) == "channels" ? n.channels
                                                                              : n.inputs) +
                         ")");
    } else if (!tooLarge && n.inputs <= 0 && !(n.width > 0 && n.height > 0 && n.channels > 0)) {
        r.error(firstKey([](int v) { return v <= 0; }),
                "no input size: set width, height and channels (or inputs) in [net]");
    } else if (!tooLarge && n.width > 0 && n.height > 0 && n.channels > 0 && n.inputs != int(pixels)) {
        // (Darknet sizes a first [connected] from inputs=, and its weights then fit no other reading)
        r.warning("inputs", "inputs=" + std::to_string(n.inputs) +
                                " is not width x height x channels = " + std::to_string(pixels) +
                                ": Darknet sizes a first [connected] from inputs, "
                                "Netwright from the image; remove inputs= or make them agree");
    }
    n.maxCrop = r.getInt("max_crop", int(std::min<std::int64_t>(std::int64_t(n.width) * 2, kMaxSide)));
    n.minCrop = r.getInt("min_crop", n.width);
    n.angle = r.getFloat("angle", 0);
    n.aspect = r.getFloat("aspect", 1);
    n.saturation = r.getFloat("saturation", 1);
    n.exposure = r.getFloat("exposure", 1);
    n.hue = r.getFloat("hue", 0);
    n.flip = r.getFlag("flip", true);
    n.letterBox = r.getFlag("letter_box", false);
    n.mosaic = r.getFlag("mosaic", false);
    n.resizeStep = std::max(1, r.getInt("resize_step", 32));
    n.policy = r.getString("policy", "constant");
    const auto& policies = learningRatePolicies();
    if (std::find(policies.begin(), policies.end(), n.policy) == policies.end())
        r.warning("policy",
                  "unknown learning-rate policy '" + n.policy + "': Darknet falls back to constant");
    n.burnIn = r.getInt("burn_in", 0);
    n.power = r.getFloat("power", 4);
    n.step = r.getInt("step", 1);
    if (n.policy == "step" && n.step < 1) // (Darknet divides by it)
        r.error("step", "step must be at least 1 (policy=step scales the rate every `step` iterations)");
    // Rates that grow without bound: poly's (1 − i/max)^power is infinite at the end for power < 0,
    // exp's gamma^i explodes for gamma > 1 (the run ended with NaN weights saved as its final ones).
    if (n.policy == "poly" && n.power < 0)
        r.warning("power", "power < 0 makes policy=poly's rate grow to infinity at max_batches (Darknet's "
                           "cfgs use 4)");
    n.scale = r.getFloat("scale", 1);
    n.gamma = r.getFloat("gamma", 1);
    // A negative factor turns the rate negative from there on (the loss then climbs), as a negative
    // learning_rate does; exp's gamma < 0 flips its sign every iteration.
    if ((n.policy == "step" && n.scale < 0) || (n.policy == "exp" && n.gamma < 0))
        r.warning(n.policy == "step" ? "scale" : "gamma",
                  "a negative factor makes the learning rate negative: the loss then climbs");
    if (n.policy == "exp" && n.gamma > 1)
        r.warning("gamma", "gamma > 1 makes policy=exp's rate grow every iteration (Darknet's cfgs use "
                           "0.99 or so)");
    n.steps = r.getIntList("steps");
    n.scales = r.getFloatList("scales");
    // (a list with a bad number has its own error on its line: not said again as missing)
    const auto missingList = [&](const auto& list, const char* key) {
        return list.empty() && r.peek(key).empty();
    };
    if (n.policy == "steps" && (missingList(n.steps, "steps") || missingList(n.scales, "scales")))
        r.error("policy", "policy=steps needs both steps= and scales= lists");
    else if (n.policy == "steps" && n.steps.size() != n.scales.size())
        r.warning("scales", "steps has " + std::to_string(n.steps.size()) + " values but scales has " +
                                std::to_string(n.scales.size()) +
                                ": they are used in pairs (a step without a scale changes nothing)");
    if (n.policy == "steps" && std::any_of(n.scales.begin(), n.scales.end(), [](float f) { return f < 0; }))
        r.warning("scales", "a negative scale makes the learning rate negative from its step on: the loss "
                            "then climbs");
    if (n.policy == "steps" && !std::is_sorted(n.steps.begin(), n.steps.end()))
        r.warning("steps", "steps are not in increasing order: a step is applied only once every step "
                           "before it has been reached (Darknet's rule), so the rate drops late");
    n.maxBatches = r.getInt("max_batches", 0);
    if (n.maxBatches < 0)
        r.error("max_batches", "max_batches must not be negative (the number of training iterations)");
    // Shortening max_batches for one's own data (AlexeyAB's README) and keeping the steps of the original
    // is the usual slip: the learning rate then never drops.
    if (n.policy == "steps" && n.maxBatches > 0 &&
        std::any_of(n.steps.begin(), n.steps.end(), [&](int at) { return at >= n.maxBatches; })) {
        const auto listed = [](const std::vector<int>& iterations) {
            std::string text;
            for (int at : iterations)
                text += (text.empty() ? "" : ",") + std::to_string(at);
            return text;
        };
        const bool none =
            std::all_of(n.steps.begin(), n.steps.end(), [&](int at) { return at >= n.maxBatches; });
        r.warning("steps", "steps=" + listed(n.steps) + (none ? " are all" : " are partly") +
                               " at or past max_batches=" + std::to_string(n.maxBatches) +
                               ": the learning rate " + (none ? "never drops" : "misses those drops") +
                               " (AlexeyAB's rule: steps at 80 % and 90 % of max_batches, " +
                               listed({int(n.maxBatches * 8LL / 10), int(n.maxBatches * 9LL / 10)}) + ")");
    }
    n.learningRateMin = r.getFloat("learning_rate_min", 1e-5f);
    n.sgdrCycle = r.getInt("sgdr_cycle", 0); // (0: max_batches, the run's length when it is overridden)
    if (n.policy == "sgdr" && n.sgdrCycle < 0)
        r.error("sgdr_cycle", "sgdr_cycle must not be negative (the first cycle's iterations; 0 or none: "
                              "max_batches)");
    // An integer, as AlexeyAB's Darknet reads it; below 1 the cycles never reached the iteration (a hang).
    n.sgdrMult = r.getInt("sgdr_mult", 2);
    if (n.policy == "sgdr" && n.sgdrMult < 1)
        r.error("sgdr_mult",
                "sgdr_mult must be at least 1 (each cycle is this many times as long as the last)");
    n.maxChartLoss = r.getFloat("max_chart_loss", 0);
    if (n.maxChartLoss < 0)
        r.warning("max_chart_loss",
                  "max_chart_loss must be positive: chart.png's loss axis follows the curve");
    // Keys Darknet (either fork) reads from [net] that only training and augmentation use, or that change
    // nothing here (memory and FP16 settings).
    r.accept({"max_ratio",
              "min_ratio",
              "center",
              "clip",
              "random",
              "notruth",
              "mosaic_bound",
              "sequential_subdivisions",
              "loss_scale",
              "workspace_size_limit_MB",
              "optimized_memory",
              "track",
              "try_fix_nan",
              "mosaic_scale",
              "cutmix_scale",
              "batchnorm_adam",
              "init_sequential_subdivisions",
              "seq_scales",
              "contrastive_jit_flip",
              "contrastive_color"});
    // AlexeyAB's training features that are not here: each one set is said on its line (they were read
    // and then silently left out, and a user's recipe changed without a word).
    r.warnUnimplemented({"cutmix", "mixup", "blur", "gaussian_noise", "adversarial_lr", "attention"},
                        "training goes on without this augmentation");
    r.warnUnimplemented({"ema_alpha"}, "no moving average of the weights is kept");
    r.warnUnimplemented({"label_smooth_eps"}, "a classifier's targets are not smoothed");
    r.warnUnimplemented({"dynamic_minibatch"}, "the batch stays as set when random= changes the input size");
    r.warnUnimplemented({"contrastive", "unsupervised"}, "the network trains on its labels only");
    r.warnUnimplemented({"weights_reject_freq", "equidistant_point", "num_sigmas_reject_badlabels",
                         "badlabels_rejection_percentage"},
                        "no label is rejected as bad");
    return n;
}

} // namespace nw
