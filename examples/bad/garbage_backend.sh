#!/bin/sh
# A command: backend (backends/command) that writes garbage where its
# result .npy should be: hloref must say so, not crash or pass.
echo "not a numpy file" > "$1/result_0.npy"
