package dev.egressproxies.integration.kvm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A loopback HTTP server in its own process ({@code python3 -m http.server}) serving the files of
 * one folder, for benchmarks: a real image server is another machine, so its CPU must not be
 * counted in (or steal from) the measured JVM. It is stopped by {@link #close()}; it binds
 * {@code 127.0.0.1} only.
 */
final class SeparateProcessFileServer implements AutoCloseable {
    private static final long START_MILLIS = 10_000;

    private final Process process;
    private final int port;

    private SeparateProcessFileServer(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** Starts serving {@code folder} on a free loopback port and waits until it answers. */
    static SeparateProcessFileServer serving(Path folder) {
        int port = freeLoopbackPort();
        Process process;
        try {
            process = new ProcessBuilder("python3", "-m", "http.server", "--bind", "127.0.0.1", "--directory",
                    folder.toString(), Integer.toString(port)).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start python3 -m http.server (is python3 installed?)", e);
        }
        SeparateProcessFileServer server = new SeparateProcessFileServer(process, port);
        server.awaitAnswer();
        return server;
    }

    /** The URL of {@code fileName} in the served folder. */
    String url(String fileName) {
        return "http://127.0.0.1:" + port + "/" + fileName;
    }

    /** The CPU time the server process used so far, in nanoseconds (0 where the system does not tell). */
    long cpuNanos() {
        return process.info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
    }

    private void awaitAnswer() {
        long deadline = System.currentTimeMillis() + START_MILLIS;
        while (System.currentTimeMillis() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError("python3 -m http.server on 127.0.0.1:" + port + " exited with "
                        + process.exitValue());
            }
            try {
                HttpURLConnection probe = (HttpURLConnection) URI.create(url("")).toURL().openConnection();
                probe.setRequestMethod("HEAD");
                probe.setConnectTimeout(500);
                if (probe.getResponseCode() > 0) {
                    probe.disconnect();
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet: try again shortly
            }
            sleepBriefly();
        }
        close();
        throw new AssertionError("python3 -m http.server on 127.0.0.1:" + port + " did not answer in "
                + START_MILLIS + " ms");
    }

    private static int freeLoopbackPort() {
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return probe.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }

    private static void sleepBriefly() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
