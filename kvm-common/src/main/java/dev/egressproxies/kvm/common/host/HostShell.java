package dev.egressproxies.kvm.common.host;

import java.io.IOException;
import java.time.Duration;
import java.util.Objects;

/**
 * Runs commands on a hypervisor itself, through the SSH session its libvirt link rides on: one
 * exec channel per command, so through a jump host the command still runs on the hypervisor.
 */
public interface HostShell {

    /**
     * {@code text} as one word of a POSIX shell command line, in single quotes: nothing in it is
     * expanded, whatever it holds ({@code '} becomes {@code '\''}).
     */
    static String quote(String text) {
        return "'" + text.replace("'", "'\\''") + "'";
    }

    /** The login and host the commands run as and on, {@code user@host:port}, for messages. */
    String destination();

    /**
     * Runs {@code command} through the login's shell, writes {@code input} to its standard input and
     * keeps that open until the command exits; returns its exit status and output, each cut to
     * {@code outputLimit} bytes. When {@code timeout} passes or the calling thread is interrupted, the
     * channel is closed: the command's standard input then ends, which a long command must take as
     * its signal to stop (sshd sends it no signal).
     *
     * @throws CommandTimeoutException when {@code timeout} passed first
     * @throws java.io.InterruptedIOException when the thread was interrupted (its flag set again)
     * @throws IOException when the command could not be run, or the connection broke
     */
    CommandResult run(String command, byte[] input, Duration timeout, int outputLimit) throws IOException;

    /**
     * What a command left: its exit status ({@code -1} when it ended by a signal or sshd did not
     * say) and its standard output and error as UTF-8 text.
     */
    record CommandResult(int exitStatus, String out, String err) {
        /** Requires both outputs. */
        public CommandResult {
            Objects.requireNonNull(out, "out");
            Objects.requireNonNull(err, "err");
        }
    }

    /** The command did not end within its time; its channel was closed. */
    final class CommandTimeoutException extends IOException {
        private static final long serialVersionUID = 1L;

        /** A timeout described by {@code message}. */
        public CommandTimeoutException(String message) {
            super(message);
        }
    }
}
