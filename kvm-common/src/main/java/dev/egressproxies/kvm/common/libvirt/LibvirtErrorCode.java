package dev.egressproxies.kvm.common.libvirt;

/**
 * The libvirt error codes ({@code virErrorNumber}, named after libvirt's {@code VIR_ERR_*}) the
 * backends act on; every other code is {@link #OTHER}, its number kept in
 * {@link LibvirtException#rawCode()}.
 */
public enum LibvirtErrorCode {
    INTERNAL_ERROR(1), NO_MEMORY(2), NO_SUPPORT(3), NO_CONNECT(5), INVALID_ARGUMENT(8), OPERATION_FAILED(9),
    XML_ERROR(27), // well-formed XML that libvirt does not accept
    XML_DETAIL(35), // XML that is not well-formed, with the parser's detail
    SYSTEM_ERROR(38), // an OS call failed, typically the connection
    RPC(39), NO_DOMAIN(42), NO_NETWORK(43), AUTH_FAILED(45), NO_STORAGE_POOL(49), NO_STORAGE_VOLUME(50),
    OPERATION_INVALID(55), // for example starting a running domain
    NO_INTERFACE(57), OPERATION_TIMEOUT(68), OPERATION_ABORTED(78), NO_DOMAIN_METADATA(80),
    CONFIG_UNSUPPORTED(67), // a definition the hypervisor cannot run, such as an unknown domain type
    OPERATION_UNSUPPORTED(84), AGENT_UNRESPONSIVE(86), STORAGE_VOLUME_EXISTS(90),
    ACCESS_DENIED(88), // a policy (polkit, the ACL driver) refused the operation
    AUTH_UNAVAILABLE(94), // polkit had nobody to ask (no agent) whether a login may connect
    /** Any other code. */
    OTHER(-1);

    private final int number;

    LibvirtErrorCode(int number) {
        this.number = number;
    }

    /** libvirt's number for it. */
    public int number() {
        return number;
    }

    /** The code for libvirt's number, {@link #OTHER} for one not listed. */
    public static LibvirtErrorCode of(int number) {
        for (LibvirtErrorCode code : values()) {
            if (code.number == number) {
                return code;
            }
        }
        return OTHER;
    }
}
