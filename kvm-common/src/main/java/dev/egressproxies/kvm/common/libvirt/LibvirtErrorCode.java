package dev.egressproxies.kvm.common.libvirt;

/**
 * The libvirt error codes ({@code virErrorNumber}) the backends act on; every other code is
 * {@link #OTHER}, its number kept in {@link LibvirtException#rawCode()}.
 */
public enum LibvirtErrorCode {
    /** VIR_ERR_INTERNAL_ERROR (1). */
    INTERNAL_ERROR(1),
    /** VIR_ERR_NO_MEMORY (2). */
    NO_MEMORY(2),
    /** VIR_ERR_NO_SUPPORT (3). */
    NO_SUPPORT(3),
    /** VIR_ERR_SYSTEM_ERROR (38): an OS call failed, typically the connection. */
    SYSTEM_ERROR(38),
    /** VIR_ERR_RPC (39): the RPC layer failed. */
    RPC(39),
    /** VIR_ERR_NO_DOMAIN (42). */
    NO_DOMAIN(42),
    /** VIR_ERR_INVALID_ARG (8). */
    INVALID_ARGUMENT(8),
    /** VIR_ERR_XML_ERROR (27): well-formed XML that libvirt does not accept. */
    XML_ERROR(27),
    /** VIR_ERR_XML_DETAIL (35): XML that is not well-formed, with the parser's detail. */
    XML_DETAIL(35),
    /** VIR_ERR_OPERATION_FAILED (9). */
    OPERATION_FAILED(9),
    /** VIR_ERR_OPERATION_INVALID (55): for example starting a running domain. */
    OPERATION_INVALID(55),
    /** VIR_ERR_NO_STORAGE_POOL (49). */
    NO_STORAGE_POOL(49),
    /** VIR_ERR_NO_STORAGE_VOL (50). */
    NO_STORAGE_VOLUME(50),
    /** VIR_ERR_STORAGE_VOL_EXIST (90). */
    STORAGE_VOLUME_EXISTS(90),
    /** VIR_ERR_NO_DOMAIN_METADATA (80). */
    NO_DOMAIN_METADATA(80),
    /** VIR_ERR_OPERATION_TIMEOUT (68). */
    OPERATION_TIMEOUT(68),
    /** VIR_ERR_AUTH_FAILED (45). */
    AUTH_FAILED(45),
    /** VIR_ERR_ACCESS_DENIED (88): a policy (polkit, the ACL driver) refused the operation. */
    ACCESS_DENIED(88),
    /** VIR_ERR_NO_CONNECT (5). */
    NO_CONNECT(5),
    /** VIR_ERR_AGENT_UNRESPONSIVE (86). */
    AGENT_UNRESPONSIVE(86),
    /** VIR_ERR_OPERATION_ABORTED (78). */
    OPERATION_ABORTED(78),
    /** VIR_ERR_NO_NETWORK (43): no libvirt network of that name. */
    NO_NETWORK(43),
    /** VIR_ERR_NO_INTERFACE (57): no host interface of that name. */
    NO_INTERFACE(57),
    /** VIR_ERR_CONFIG_UNSUPPORTED (67): a definition the hypervisor cannot run, such as an unknown domain type. */
    CONFIG_UNSUPPORTED(67),
    /** VIR_ERR_OPERATION_UNSUPPORTED (84). */
    OPERATION_UNSUPPORTED(84),
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
