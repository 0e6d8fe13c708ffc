package dev.egressproxies.kvm.common.image;

import dev.egressproxies.kvm.common.host.HostShell;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A {@link HostShell} on this machine: {@code sh -c COMMAND} as a child process in a new session, its stdin kept open
 * until it exits and closed when its time is up, as an SSH exec channel's close does; tests run the
 * real host-side scripts with it against a loopback image server.
 */
final class LocalShell implements HostShell {
    private final Map<String, String> environment;

    LocalShell() {
        this(Map.of());
    }

    /** A shell whose commands see {@code environment} on top of this process's (a PATH without curl). */
    LocalShell(Map<String, String> environment) {
        this.environment = environment;
    }

    @Override
    public String destination() {
        return "local@localhost:22";
    }

    @Override
    public CommandResult run(String command, byte[] input, Duration timeout, int outputLimit) throws IOException {
        // A session of its own, as sshd gives each command: the scripts end their process group on
        // the end of stdin, which must not be this JVM's (nor Maven's).
        ProcessBuilder builder = new ProcessBuilder("setsid", "-w", "sh", "-c", command);
        builder.environment().putAll(environment);
        Process process = builder.start();
        CompletableFuture<byte[]> out = drain(process.getInputStream());
        CompletableFuture<byte[]> err = drain(process.getErrorStream());
        OutputStream stdin = process.getOutputStream();
        stdin.write(input);
        stdin.flush();
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                stdin.close();
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
                throw new CommandTimeoutException("timed out after " + timeout);
            }
            stdin.close();
            return new CommandResult(process.exitValue(), text(out.join(), outputLimit), text(err.join(), outputLimit));
        } catch (InterruptedException interrupted) {
            stdin.close();
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted");
        }
    }

    private static CompletableFuture<byte[]> drain(InputStream stream) {
        return CompletableFuture.supplyAsync(() -> {
            try (stream) {
                ByteArrayOutputStream all = new ByteArrayOutputStream();
                stream.transferTo(all);
                return all.toByteArray();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    private static String text(byte[] bytes, int limit) {
        return new String(bytes, 0, Math.min(bytes.length, limit), StandardCharsets.UTF_8);
    }
}
