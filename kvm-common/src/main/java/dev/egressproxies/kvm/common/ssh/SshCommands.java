package dev.egressproxies.kvm.common.ssh;

import dev.egressproxies.kvm.common.host.HostShell;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.sshd.client.channel.ChannelExec;
import org.apache.sshd.client.session.ClientSession;

/** A {@link HostShell} on an open SSH session: an exec channel per command, closed when its time is up. */
final class SshCommands implements HostShell {
    private final ClientSession session;
    private final String destination;

    SshCommands(ClientSession session, String destination) {
        this.session = session;
        this.destination = destination;
    }

    @Override
    public String destination() {
        return destination;
    }

    @Override
    public CommandResult run(String command, byte[] input, Duration timeout, int outputLimit) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        ChannelExec channel = session.createExecChannel(command);
        LimitedOutput out = new LimitedOutput(outputLimit);
        LimitedOutput err = new LimitedOutput(outputLimit);
        channel.setOut(out);
        channel.setErr(err);
        CountDownLatch closed = new CountDownLatch(1);
        try {
            channel.addCloseFutureListener(future -> closed.countDown());
            channel.open().verify(remaining(deadline));
            OutputStream stdin = channel.getInvertedIn();
            stdin.write(input);
            stdin.flush();
            // MINA's own waitFor swallows interrupts, so the wait is on a latch of ours.
            if (!closed.await(remaining(deadline).toNanos(), TimeUnit.NANOSECONDS)) {
                throw new CommandTimeoutException("the command on " + destination + " did not end within "
                        + timeout.toSeconds() + " s; its channel was closed");
            }
            Integer status = channel.getExitStatus();
            return new CommandResult(status == null ? -1 : status, out.text(), err.text());
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            InterruptedIOException failure = new InterruptedIOException("interrupted while a command ran on "
                    + destination + "; its channel was closed");
            failure.initCause(interrupted);
            throw failure;
        } catch (IOException failure) {
            if (!session.isOpen()) {
                throw new IOException("the SSH connection to " + destination + " closed while a command ran there",
                        failure);
            }
            throw failure;
        } finally {
            // Closing ends the command's standard input, its signal to stop; a no-op once sshd closed it.
            channel.close(true);
        }
    }

    private static Duration remaining(long deadlineNanos) {
        return Duration.ofNanos(Math.max(1, deadlineNanos - System.nanoTime()));
    }

    /** Keeps the first {@code limit} bytes and counts the rest away, so a chatty command cannot fill the heap. */
    private static final class LimitedOutput extends OutputStream {
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
        private final int limit;

        LimitedOutput(int limit) {
            this.limit = limit;
        }

        @Override
        public synchronized void write(int b) {
            if (kept.size() < limit) {
                kept.write(b);
            }
        }

        @Override
        public synchronized void write(byte[] bytes, int offset, int length) {
            int room = Math.max(0, limit - kept.size());
            kept.write(bytes, offset, Math.min(room, length));
        }

        synchronized String text() {
            return kept.toString(StandardCharsets.UTF_8);
        }
    }
}
