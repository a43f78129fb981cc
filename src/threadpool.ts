/**
 * Imported first by the process entry, before anything queues work on libuv's thread pool (sized
 * once, at its first use). Every upload ends in fsyncs of its file and directory, each holding a
 * pool thread for milliseconds; with the default 4 threads, 8 concurrent small uploads queued
 * their writes, closes and renames behind each other's fsyncs (bench/files.js, 1 MiB uploads at
 * 8 connections). UV_THREADPOOL_SIZE set in the environment wins.
 */
process.env.UV_THREADPOOL_SIZE ??= '32';
