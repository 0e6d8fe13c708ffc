package dev.egressproxies.kvm.common.libvirt;

/**
 * The part of libvirt that raised an error ({@code virErrorDomain}, named after {@code VIR_FROM_*})
 * for the parts the backends tell apart.
 */
public enum LibvirtErrorSource {
    NONE(0), // a helper outside any driver, such as the network device code
    RPC(7), // the RPC layer, the client's socket among it
    QEMU(10), // the QEMU driver
    REMOTE(13), // the client's remote driver
    STORAGE(18), // the storage driver
    DOMAIN(20), // the domain XML parser and checker
    CPU(31), // the CPU model code
    DBUS(47), // the D-Bus client, through which libvirtd asks polkit whether a login may connect
    CGROUP(54), // the cgroup code, which checks device paths before QEMU starts
    POLKIT(60), // libvirtd's polkit check of a login
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
