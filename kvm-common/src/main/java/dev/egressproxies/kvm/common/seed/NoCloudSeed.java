package dev.egressproxies.kvm.common.seed;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The cloud-init NoCloud seed of one instance and its ISO image, labelled {@value #VOLUME_LABEL}:
 * {@value #META_DATA_FILE} (instance-id and local-hostname, both the instance name, stable for the
 * VM's life so cloud-init's once-per-instance steps run once), {@value #USER_DATA_FILE} (the
 * caller's bytes, possibly none), {@value #VENDOR_DATA_FILE} and, only when given,
 * {@value #NETWORK_CONFIG_FILE} (without it cloud-init uses DHCP on the first interface).
 */
public final class NoCloudSeed {
    static final String VOLUME_LABEL = "cidata";
    static final String META_DATA_FILE = "meta-data";
    static final String USER_DATA_FILE = "user-data";
    static final String VENDOR_DATA_FILE = "vendor-data";
    static final String NETWORK_CONFIG_FILE = "network-config";

    /**
     * The vendor-data used unless overridden: installs the QEMU guest agent, through which the
     * platform learns an address the host's ARP table lacks, and starts it.
     */
    public static final String DEFAULT_VENDOR_DATA = """
            #cloud-config
            packages:
              - qemu-guest-agent
            runcmd:
              - [systemctl, enable, --now, qemu-guest-agent.service]
            """;

    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");

    private final String instanceName;
    private final SortedMap<String, byte[]> files = new TreeMap<>();

    private NoCloudSeed(Builder builder) {
        this.instanceName = builder.instanceName;
        files.put(META_DATA_FILE, metaData().getBytes(StandardCharsets.UTF_8));
        files.put(USER_DATA_FILE, builder.userData);
        files.put(VENDOR_DATA_FILE, builder.vendorData.getBytes(StandardCharsets.UTF_8));
        if (builder.networkConfig != null) {
            files.put(NETWORK_CONFIG_FILE, builder.networkConfig.getBytes(StandardCharsets.UTF_8));
        }
    }

    /**
     * Starts a seed with empty user-data, the default vendor-data and no network-config;
     * IllegalArgumentException when {@code instanceName} is not a DNS label.
     */
    public static Builder builder(String instanceName) {
        return new Builder(instanceName);
    }

    /**
     * The meta-data document. Quoted because YAML 1.1 reads labels such as {@code no}, {@code 123}
     * or {@code 2024-01-02} as other types.
     */
    String metaData() {
        return "instance-id: \"" + instanceName + "\"\nlocal-hostname: \"" + instanceName + "\"\n";
    }

    /** A copy of the seed's files by name, in the order the image records them. */
    SortedMap<String, byte[]> files() {
        SortedMap<String, byte[]> copy = new TreeMap<>();
        files.forEach((name, content) -> copy.put(name, content.clone()));
        return copy;
    }

    /** Returns the seed's ISO image, recorded at {@code clock}'s instant; see {@link #toIsoImage(Instant)}. */
    public byte[] toIsoImage(Clock clock) {
        return toIsoImage(clock.instant());
    }

    /**
     * Returns the seed's ISO image, recorded at {@code recordedAt}; the same time gives the same
     * bytes. IllegalArgumentException when the files hold over 32 MiB or the UTC year is outside
     * 1900 to 2155.
     */
    public byte[] toIsoImage(Instant recordedAt) {
        return SeedIso.write(recordedAt, files);
    }

    @Override
    public String toString() {
        // No content: user-data may carry secrets.
        return "NoCloudSeed[" + instanceName + ", user-data " + files.get(USER_DATA_FILE).length
                + " bytes, network-config " + (files.containsKey(NETWORK_CONFIG_FILE) ? "present" : "absent") + "]";
    }

    /** A builder of {@link NoCloudSeed}; not safe for use by several threads. */
    public static final class Builder {
        private final String instanceName;
        private byte[] userData = new byte[0];
        private String vendorData = DEFAULT_VENDOR_DATA;
        private String networkConfig;

        private Builder(String instanceName) {
            // Requests are checked to be DNS labels already; this keeps the meta-data YAML safe on its own.
            if (!DNS_LABEL.matcher(Objects.requireNonNull(instanceName, "instanceName")).matches()) {
                throw new IllegalArgumentException("instance name '" + instanceName + "' is not a DNS label: use 1 to"
                        + " 63 characters of a-z, 0-9 and '-', starting and ending with a letter or digit");
            }
            this.instanceName = instanceName;
        }

        /** Sets the user-data to exactly these bytes (gzip-compressed user-data is fine too). */
        public Builder userData(byte[] userData) {
            this.userData = Objects.requireNonNull(userData, "userData").clone();
            return this;
        }

        /** Sets the user-data to this text, encoded as UTF-8; {@code ""} means none. */
        public Builder userData(String userData) {
            return userData(Objects.requireNonNull(userData, "userData").getBytes(StandardCharsets.UTF_8));
        }

        /** Replaces {@link #DEFAULT_VENDOR_DATA}; {@code ""} writes an empty vendor-data file. */
        public Builder vendorData(String vendorData) {
            this.vendorData = Objects.requireNonNull(vendorData, "vendorData");
            return this;
        }

        /** Adds a {@value NoCloudSeed#NETWORK_CONFIG_FILE} file with this content. */
        public Builder networkConfig(String networkConfig) {
            this.networkConfig = Objects.requireNonNull(networkConfig, "networkConfig");
            return this;
        }

        /** Builds the seed. */
        public NoCloudSeed build() {
            return new NoCloudSeed(this);
        }
    }
}
