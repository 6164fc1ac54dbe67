#!/usr/bin/python3
"""SGD or Adam steps in PyTorch on the network test_torch_parity builds:
conv(f1, 3x3, pad 1, BN, leaky .1) → maxpool 2/2 → conv(f2, 3x3, pad 1, BN, leaky .1) → maxpool 2/2 →
connected(hidden, leaky .1) → connected(classes, linear) → softmax + cross-entropy (mean over the batch).

usage: torch_sgd_step.py IN.weights INPUT.f32 LABELS.txt OUT.weights B C H W F1 F2 HIDDEN CLASSES LR DECAY
       [sgd|adam STEPS]
Reads the starting weights in Darknet's layout, writes the updated ones in the same layout. Adam uses
B1 .9, B2 .999, eps 1e-7 (Darknet's defaults); each step runs forward/backward on the same batch.
Weight decay applies to conv and connected weights only (Darknet: not to biases or BN scales).
"""
import sys

import numpy as np
import torch

args = sys.argv[1:]
weights_in, input_path, labels_path, weights_out = args[:4]
B, C, H, W, F1, F2, HIDDEN, CLASSES = map(int, args[4:12])
LR, DECAY = map(float, args[12:14])
OPTIMIZER = args[14] if len(args) > 14 else "sgd"
STEPS = int(args[15]) if len(args) > 15 else 1
torch.set_num_threads(1)

raw = np.fromfile(weights_in, dtype=np.uint8)
header = raw[:20].copy()  # 0.2.x: three int32 and a uint64 seen
floats = np.frombuffer(raw[20:].tobytes(), dtype=np.float32).copy()
offset = 0


def take(n):
    global offset
    part = floats[offset:offset + n]
    offset += n
    return torch.tensor(part)


def conv_block(cin, cout):
    conv = torch.nn.Conv2d(cin, cout, 3, padding=1, bias=False)
    bn = torch.nn.BatchNorm2d(cout, eps=1e-5)
    bn.bias.data = take(cout)            # Darknet: biases, scales, rolling mean, rolling variance, weights
    bn.weight.data = take(cout)
    bn.running_mean.data = take(cout)
    bn.running_var.data = take(cout)
    conv.weight.data = take(cout * cin * 9).reshape(cout, cin, 3, 3)
    return conv, bn


conv1, bn1 = conv_block(C, F1)
conv2, bn2 = conv_block(F1, F2)
flat = F2 * (H // 4) * (W // 4)
fc1 = torch.nn.Linear(flat, HIDDEN)
fc1.bias.data = take(HIDDEN)             # Darknet connected: biases, then weights [out][in]
fc1.weight.data = take(HIDDEN * flat).reshape(HIDDEN, flat)
fc2 = torch.nn.Linear(HIDDEN, CLASSES)
fc2.bias.data = take(CLASSES)
fc2.weight.data = take(CLASSES * HIDDEN).reshape(CLASSES, HIDDEN)
assert offset == len(floats), (offset, len(floats))

leaky = torch.nn.LeakyReLU(0.1)
pool = torch.nn.MaxPool2d(2, 2)
model = torch.nn.ModuleList([conv1, bn1, conv2, bn2, fc1, fc2])
model.train()

x = torch.tensor(np.fromfile(input_path, dtype=np.float32).reshape(B, C, H, W))
labels = torch.tensor([int(v) for v in open(labels_path).read().split()])
decayed = [conv1.weight, conv2.weight, fc1.weight, fc2.weight]
others = [p for p in model.parameters() if all(p is not d for d in decayed)]
groups = [{"params": decayed, "weight_decay": DECAY}, {"params": others, "weight_decay": 0.0}]
if OPTIMIZER == "adam":
    optimizer = torch.optim.Adam(groups, lr=LR, betas=(0.9, 0.999), eps=1e-7)
else:
    optimizer = torch.optim.SGD(groups, lr=LR, momentum=0.9)
for step in range(STEPS):
    optimizer.zero_grad()
    y = pool(leaky(bn1(conv1(x))))
    y = pool(leaky(bn2(conv2(y))))
    y = leaky(fc1(y.flatten(1)))
    loss = torch.nn.functional.cross_entropy(fc2(y), labels)  # mean over the batch
    loss.backward()
    optimizer.step()

out = [header.tobytes()]
for bn, conv in ((bn1, conv1), (bn2, conv2)):
    for t in (bn.bias, bn.weight, bn.running_mean, bn.running_var, conv.weight):
        out.append(t.detach().numpy().astype(np.float32).tobytes())
for fc in (fc1, fc2):
    for t in (fc.bias, fc.weight):
        out.append(t.detach().numpy().astype(np.float32).tobytes())
open(weights_out, "wb").write(b"".join(out))
print("loss", float(loss))
