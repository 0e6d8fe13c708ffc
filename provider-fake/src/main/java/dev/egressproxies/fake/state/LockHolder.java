package dev.egressproxies.fake.state;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Who holds a state file's lock, as the holder writes it into the lock file once it has the lock,
 * so a process waiting for it can say which process it waits for. One line:
 * {@code pid=1234 host=build-7 since=2030-01-01T00:00:00Z}.
 *
 * <p>The OS releases the lock when its holder exits, however it ends, so the line only ever names
 * a live holder while the lock is busy; once free, the line is stale and nobody reads it.
 *
 * @param pid   the holder's process ID
 * @param host  the holder's host name
 * @param since when it took the lock
 */
record LockHolder(long pid, String host, Instant since) {
    private static final Pattern LINE = Pattern.compile("pid=(\\d+) host=(\\S+) since=(\\S+)\\s*");

    /** This process, taking the lock now. */
    static LockHolder thisProcess(Instant now) {
        return new LockHolder(ProcessIdentity.CURRENT.pid(), ProcessIdentity.CURRENT.host(), now);
    }

    /** The holder recorded in a lock file's content; empty when it records none this class can read. */
    static Optional<LockHolder> parse(byte[] content) {
        Matcher matcher = LINE.matcher(new String(content, StandardCharsets.UTF_8));
        if (!matcher.matches()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new LockHolder(Long.parseLong(matcher.group(1)), matcher.group(2),
                    Instant.parse(matcher.group(3))));
        } catch (NumberFormatException | DateTimeParseException unreadable) {
            return Optional.empty();
        }
    }

    /** The line written into the lock file. */
    byte[] toLine() {
        return ("pid=" + pid + " host=" + host + " since=" + since + "\n").getBytes(StandardCharsets.UTF_8);
    }

    /** For messages: {@code process 1234 on host build-7 (since 2030-01-01T00:00:00Z)}. */
    String describe() {
        return "process " + pid + " on host " + host + " (since " + since + ")";
    }
}
