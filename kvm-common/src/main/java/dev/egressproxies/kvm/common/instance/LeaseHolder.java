package dev.egressproxies.kvm.common.instance;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/** Who holds a {@link PoolLease}: a process by machine name, boot ID, PID and start time (epoch ms). */
public record LeaseHolder(String machine, String bootId, long pid, long started) {
    private static final Path BOOT_ID = Path.of("/proc/sys/kernel/random/boot_id");

    /** Checks the fields hold no line breaks or '=' signs, which the lease's text format would not survive. */
    public LeaseHolder {
        for (String field : new String[] {Objects.requireNonNull(machine, "machine"),
                Objects.requireNonNull(bootId, "bootId")}) {
            if (field.isEmpty() || field.contains("\n") || field.contains("=")) {
                throw new IllegalArgumentException("lease holder field '" + field + "' must be one line without '='");
            }
        }
    }

    /** This process. */
    public static LeaseHolder current() {
        ProcessHandle self = ProcessHandle.current();
        return new LeaseHolder(machineName(), readBootId(), self.pid(), startMillis(self).orElse(0L));
    }

    /** Whether {@code other} ran on this machine since its last boot, so its liveness can be checked locally. */
    public boolean sameMachine(LeaseHolder other) {
        return machine.equals(other.machine) && bootId.equals(other.bootId) && !"unknown".equals(bootId);
    }

    /** Whether {@code other} is known to be gone: its machine rebooted, or its PID is dead or reused. */
    public boolean knowsGone(LeaseHolder other) {
        if (machine.equals(other.machine) && !bootId.equals(other.bootId) && !"unknown".equals(bootId)
                && !"unknown".equals(other.bootId)) {
            return true;
        }
        if (!sameMachine(other)) {
            return false;
        }
        Optional<ProcessHandle> process = ProcessHandle.of(other.pid).filter(ProcessHandle::isAlive);
        return process.isEmpty() || other.started != 0 && startMillis(process.get()).map(at -> at != other.started)
                .orElse(false);
    }

    public String describe() {
        return "process " + pid + " on " + machine;
    }

    private static Optional<Long> startMillis(ProcessHandle process) {
        return process.info().startInstant().map(java.time.Instant::toEpochMilli);
    }

    private static String machineName() {
        try {
            return clean(InetAddress.getLocalHost().getHostName());
        } catch (IOException unknown) {
            return Optional.ofNullable(System.getenv("HOSTNAME")).map(LeaseHolder::clean).orElse("unknown");
        }
    }

    private static String readBootId() {
        try {
            return clean(Files.readString(BOOT_ID, StandardCharsets.US_ASCII));
        } catch (IOException | RuntimeException unreadable) {
            // Not Linux, or /proc is hidden: same-machine liveness checks are off, expiry still works.
            return "unknown";
        }
    }

    private static String clean(String text) {
        String cleaned = text.strip().replaceAll("[\\s=]", "_");
        return cleaned.isEmpty() ? "unknown" : cleaned;
    }
}
