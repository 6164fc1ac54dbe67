#pragma once
// The element-wise maths of the recurrent layers ([rnn], [gru], [lstm]; layers/*.cpp) between their
// connected gate blocks, written once for the CPU layers and their CUDA kernels
// (kernels/cuda/recurrent_kernels.cu). Deltas follow Darknet's convention: −∂loss/∂value.
#include "kernels/activation_formulas.h"
#include "kernels/host_device.h"

namespace nw {

// [rnn]: the new state from the previous one (kept only with shortcut) and the two blocks' outputs.
NW_HOST_DEVICE inline float rnnState(float previous, float fromInput, float fromSelf, bool shortcut)
{
    return (shortcut ? previous : 0.0f) + fromInput + fromSelf;
}

// [gru], first half of a step: the update gate z and reset gate r from their recurrent (a) and input (b)
// blocks; returns r ∘ s, the state the candidate's recurrent block reads.
NW_HOST_DEVICE inline float gruGates(float az, float bz, float ar, float br, float s, float& z, float& r)
{
    z = activationFormula(az + bz, Activation::Logistic);
    r = activationFormula(ar + br, Activation::Logistic);
    return r * s;
}

// [gru], second half: the candidate c = act(a + b) and the output (the next state) z∘s + (1 − z)∘c.
NW_HOST_DEVICE inline float gruOutput(float a, float b, float z, float s, bool tanhCandidate, float& c)
{
    c = activationFormula(a + b, tanhCandidate ? Activation::Tanh : Activation::Logistic);
    return z * s + (1 - z) * c;
}

// [gru] backward from d, the output's delta (this step's plus the next step's): the delta reaching the
// previous state directly, and the deltas of z's and c's pre-activations.
NW_HOST_DEVICE inline float gruOutputDelta(float d, float s, float z, float c, bool tanhCandidate, float& dz,
                                           float& dc)
{
    dz = d * (s - c) * z * (1 - z);
    dc = d * (1 - z) * (tanhCandidate ? 1 - c * c : c * (1 - c));
    return d * z;
}

// [gru] backward through r ∘ s, given df (the candidate's recurrent block's input delta): the part for
// the previous state, and the delta of r's pre-activation.
NW_HOST_DEVICE inline float gruResetDelta(float df, float r, float s, float& dr)
{
    dr = df * s * r * (1 - r);
    return df * r;
}

// [lstm]: one gate's value from its recurrent (a) and input (b) blocks.
NW_HOST_DEVICE inline float lstmGate(float a, float b, Activation activation)
{
    return activationFormula(a + b, activation);
}

// [lstm]: the next cell c' = f∘c + i∘g; returns the output h' = o∘tanh(c').
NW_HOST_DEVICE inline float lstmCell(float f, float i, float g, float o, float c, float& nextCell)
{
    nextCell = f * c + i * g;
    return o * tanhf(nextCell);
}

// [lstm] backward of one step: dh is the output's delta (this step's plus the next step's), cellDelta
// the next step's delta of this step's cell (replaced by the delta of the previous cell); c is this
// step's cell, cPrevious the one before. Writes the pre-activation deltas of f, i, g, o.
NW_HOST_DEVICE inline void lstmDeltas(float dh, float& cellDelta, float c, float cPrevious, float f, float i,
                                      float g, float o, float& df, float& di, float& dg, float& dout)
{
    const float tc = tanhf(c);
    const float dc = cellDelta + dh * o * (1 - tc * tc);
    dout = dh * tc * o * (1 - o);
    df = dc * cPrevious * f * (1 - f);
    di = dc * g * i * (1 - i);
    dg = dc * i * (1 - g * g);
    cellDelta = dc * f;
}

} // namespace nw
