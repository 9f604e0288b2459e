npx wasi-thread-pool run --dir ./data::/data lines.wasm /data/input.txt
echo "exit status $?"
