#pragma once
// What a detection head measures on each training batch: the figures Darknet prints per [yolo] layer.
namespace nw {

struct HeadStats {
    int layer = 0;         // index of the head in the net
    double loss = 0;       // Σ delta² of this head (Darknet's cost)
    double averageIou = 0; // over the truths assigned to this head
    double classScore = 0; // average score of the true class at the assigned anchor
    double objectness = 0; // average objectness at the assigned anchors
    double noObject = 0;   // average objectness over every anchor slot
    double recall50 = 0;   // share of assigned truths whose predicted box has IoU > 0.5
    double recall75 = 0;   // ... > 0.75
    int count = 0;         // truths assigned to this head
};

// Turns the sums a head collected over a batch into averages (`slotCount`: anchor slots seen in total).
inline void finishHeadStats(HeadStats& stats, double slotCount)
{
    if (stats.count > 0) {
        const double n = stats.count;
        stats.averageIou /= n;
        stats.classScore /= n;
        stats.objectness /= n;
        stats.recall50 /= n;
        stats.recall75 /= n;
    }
    if (slotCount > 0)
        stats.noObject /= slotCount;
}

} // namespace nw
