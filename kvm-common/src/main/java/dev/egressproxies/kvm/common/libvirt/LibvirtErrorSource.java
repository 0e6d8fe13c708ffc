package dev.egressproxies.kvm.common.libvirt;

/**
 * The part of libvirt that raised an error (libvirt's {@code virErrorDomain}), for the parts the
 * backends tell apart; every other one is {@link #OTHER}, and an error without one {@link #UNKNOWN}. An error relayed from the daemon keeps the
 * source the daemon gave it, so {@link #RPC} and {@link #REMOTE} mark errors of the client's own
 * side of the link.
 */
public enum LibvirtErrorSource {
    /** VIR_FROM_NONE (0): a helper outside any driver, such as the network device code. */
    NONE(0),
    /** VIR_FROM_RPC (7): the RPC layer, the client's socket among it. */
    RPC(7),
    /** VIR_FROM_QEMU (10): the QEMU driver. */
    QEMU(10),
    /** VIR_FROM_REMOTE (13): the client's remote driver. */
    REMOTE(13),
    /** VIR_FROM_STORAGE (18): the storage driver. */
    STORAGE(18),
    /** VIR_FROM_DOMAIN (20): the domain XML parser and checker. */
    DOMAIN(20),
    /** VIR_FROM_CPU (31): the CPU model code. */
    CPU(31),
    /** VIR_FROM_CGROUP (54): the cgroup code, which checks device paths before QEMU starts. */
    CGROUP(54),
    /** No source given: libvirt-java did not know it, or the error was raised outside libvirt (fakes). */
    UNKNOWN(-1),
    /** Any other source; its number is in {@link LibvirtException#rawSource()}. */
    OTHER(-2);

    private final int number;

    LibvirtErrorSource(int number) {
        this.number = number;
    }

    /** libvirt's number for it. */
    public int number() {
        return number;
    }

    /** The source for libvirt's number, {@link #UNKNOWN} for -1, {@link #OTHER} for one not listed. */
    public static LibvirtErrorSource of(int number) {
        for (LibvirtErrorSource source : values()) {
            if (source.number == number) {
                return source;
            }
        }
        return OTHER;
    }
}
