#!/usr/bin/python3
"""PyTorch (python3-torch) training the bundled cfg/fashion-mnist.cfg network on Fashion-MNIST:
conv32-BN-leaky-maxpool / conv64-BN-leaky-maxpool / connected 128 leaky / connected 10, batch 128,
SGD lr 0.01 momentum 0.9 weight decay 0.0005, THREADS threads. Prints the median images/s over
ITERATIONS iterations (after 5 warm-up ones).    pytorch_fashion.py ITERATIONS THREADS [DEVICE [DATA_DIR]]
On a GPU (DEVICE cuda) the set sits in GPU memory and each iteration is timed to its end (synchronised).
"""
import gzip
import statistics
import sys
import time

import numpy as np
import torch

iterations, threads = int(sys.argv[1]), int(sys.argv[2])
device = torch.device(sys.argv[3] if len(sys.argv) > 3 else "cpu")
root = sys.argv[4] if len(sys.argv) > 4 else "/usr/share/datasets/fashion-mnist/"
torch.set_num_threads(threads)
with gzip.open(root + "train-images-idx3-ubyte.gz") as f:
    images = np.frombuffer(f.read()[16:], dtype=np.uint8).reshape(-1, 1, 28, 28).astype(np.float32) / 255
with gzip.open(root + "train-labels-idx1-ubyte.gz") as f:
    labels = np.frombuffer(f.read()[8:], dtype=np.uint8).astype(np.int64)
x_all, y_all = torch.tensor(images).to(device), torch.tensor(labels).to(device)

leaky = torch.nn.LeakyReLU(0.1)
model = torch.nn.Sequential(
    torch.nn.Conv2d(1, 32, 3, padding=1, bias=False), torch.nn.BatchNorm2d(32), leaky, torch.nn.MaxPool2d(2, 2),
    torch.nn.Conv2d(32, 64, 3, padding=1, bias=False), torch.nn.BatchNorm2d(64), leaky, torch.nn.MaxPool2d(2, 2),
    torch.nn.Flatten(), torch.nn.Linear(64 * 7 * 7, 128), leaky, torch.nn.Linear(128, 10)).to(device)
sgd = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=0.0005)
rates = []
permutation = torch.randperm(len(x_all), device=device)
for i in range(iterations + 5):
    index = permutation[(i * 128) % (len(x_all) - 128):][:128]
    start = time.perf_counter()
    sgd.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x_all[index]), y_all[index])
    loss.backward()
    sgd.step()
    if device.type == "cuda":
        torch.cuda.synchronize()
    if i >= 5:
        rates.append(128 / (time.perf_counter() - start))
print('{"images_per_sec": %.1f}' % statistics.median(rates))
