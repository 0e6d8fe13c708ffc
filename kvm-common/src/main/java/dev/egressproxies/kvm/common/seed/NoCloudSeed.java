package dev.egressproxies.kvm.common.seed;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The cloud-init NoCloud seed of one instance: the files cloud-init reads from a volume labelled
 * {@value #VOLUME_LABEL} on its first boot, and the ISO image that carries them.
 *
 * <ul>
 *   <li>{@value #META_DATA_FILE}: {@code instance-id} and {@code local-hostname}, both the
 *       instance name. cloud-init runs its once-per-instance steps again whenever the
 *       instance-id changes, so it must be stable for the life of the VM.
 *   <li>{@value #USER_DATA_FILE}: exactly the bytes the caller gives, possibly none (cloud-init
 *       then has nothing to do; it expects {@code #cloud-config}, a script, or nothing).
 *   <li>{@value #VENDOR_DATA_FILE}: what the platform itself needs in every guest;
 *       {@link #DEFAULT_VENDOR_DATA} unless overridden. cloud-init merges it under the user-data.
 *   <li>{@value #NETWORK_CONFIG_FILE}: only when given; without it cloud-init falls back to
 *       DHCP on the first interface.
 * </ul>
 *
 * <p>The seed is rebuilt in full for every create, never patched: an upload cut off earlier
 * would otherwise boot a VM without its configuration.
 */
public final class NoCloudSeed {
    /** The volume label cloud-init's NoCloud data source looks for. */
    public static final String VOLUME_LABEL = "cidata";
    /** The name of the file holding the caller's cloud-init user-data. */
    public static final String USER_DATA_FILE = "user-data";
    /** The name of the file holding instance-id and local-hostname. */
    public static final String META_DATA_FILE = "meta-data";
    /** The name of the file holding the platform's vendor-data. */
    public static final String VENDOR_DATA_FILE = "vendor-data";
    /** The name of the optional file holding a network configuration. */
    public static final String NETWORK_CONFIG_FILE = "network-config";

    /**
     * The vendor-data used unless overridden: installs the QEMU guest agent and starts it.
     *
     * <p>The agent is how the platform learns a VM's address when the host's ARP table does not
     * know it. {@code packages} makes cloud-init refresh the package index first. The explicit
     * {@code systemctl enable --now} is there because the agent's unit is usually started by a
     * udev rule when its virtio port appears, and that happened at boot, before the package
     * was installed; on distributions where the unit is static, {@code enable} is a harmless
     * no-op and {@code --now} still starts it.
     */
    public static final String DEFAULT_VENDOR_DATA = """
            #cloud-config
            packages:
              - qemu-guest-agent
            runcmd:
              - [systemctl, enable, --now, qemu-guest-agent.service]
            """;

    private final String instanceName;
    private final byte[] userData;
    private final String vendorData;
    private final String networkConfig;

    private NoCloudSeed(Builder builder) {
        this.instanceName = builder.instanceName;
        this.userData = builder.userData.clone();
        this.vendorData = builder.vendorData;
        this.networkConfig = builder.networkConfig;
    }

    /**
     * Starts a seed for the instance {@code instanceName}, with empty user-data, the default
     * vendor-data and no network-config.
     *
     * @throws IllegalArgumentException when the name is blank or is not valid text
     */
    public static Builder builder(String instanceName) {
        return new Builder(instanceName);
    }

    /** Returns the instance name, recorded as instance-id and local-hostname. */
    public String instanceName() {
        return instanceName;
    }

    /** Returns the meta-data document, a YAML mapping with the instance name quoted. */
    public String metaData() {
        return "instance-id: " + YamlDoubleQuoted.quote(instanceName) + "\n"
                + "local-hostname: " + YamlDoubleQuoted.quote(instanceName) + "\n";
    }

    /** Returns a copy of the user-data bytes. */
    public byte[] userData() {
        return userData.clone();
    }

    /** Returns the vendor-data document. */
    public String vendorData() {
        return vendorData;
    }

    /** Returns the network-config document, if one was given. */
    public Optional<String> networkConfig() {
        return Optional.ofNullable(networkConfig);
    }

    /**
     * Returns the seed as an ISO volume labelled {@value #VOLUME_LABEL}.
     *
     * @param recordedAt the time recorded in the image; the same time gives the same image
     * @throws IllegalArgumentException when the files exceed {@link IsoVolume}'s limits
     */
    public IsoVolume toIsoVolume(Instant recordedAt) {
        List<IsoFile> files = new ArrayList<>();
        files.add(IsoFile.ofUtf8(META_DATA_FILE, metaData()));
        files.add(IsoFile.of(USER_DATA_FILE, userData));
        files.add(IsoFile.ofUtf8(VENDOR_DATA_FILE, vendorData));
        if (networkConfig != null) {
            files.add(IsoFile.ofUtf8(NETWORK_CONFIG_FILE, networkConfig));
        }
        return new IsoVolume(VOLUME_LABEL, recordedAt, files);
    }

    /**
     * Returns the seed's ISO image, recorded at {@code clock}'s current instant.
     *
     * @throws IllegalArgumentException when the files exceed {@link IsoVolume}'s limits
     */
    public byte[] toIsoImage(Clock clock) {
        return toIsoImage(clock.instant());
    }

    /**
     * Returns the seed's ISO image, recorded at {@code recordedAt}.
     *
     * @throws IllegalArgumentException when the files exceed {@link IsoVolume}'s limits
     */
    public byte[] toIsoImage(Instant recordedAt) {
        return Iso9660Writer.toByteArray(toIsoVolume(recordedAt));
    }

    @Override
    public String toString() {
        // No content: user-data may carry secrets.
        return "NoCloudSeed[" + instanceName + ", user-data " + userData.length + " bytes, network-config "
                + (networkConfig == null ? "absent" : "present") + "]";
    }

    /** A builder of {@link NoCloudSeed}; not safe for use by several threads. */
    public static final class Builder {
        private final String instanceName;
        private byte[] userData = new byte[0];
        private String vendorData = DEFAULT_VENDOR_DATA;
        private String networkConfig;

        private Builder(String instanceName) {
            Objects.requireNonNull(instanceName, "instanceName");
            if (instanceName.isBlank()) {
                throw new IllegalArgumentException("instance name is blank: cloud-init needs an instance-id");
            }
            YamlDoubleQuoted.quote(instanceName); // rejects a name that is not valid text, early
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

        /**
         * Replaces {@link #DEFAULT_VENDOR_DATA}; {@code ""} writes an empty vendor-data file.
         * Callers whose configuration treats an absent value as "use the default" keep that
         * mapping on their side, so this never guesses.
         */
        public Builder vendorData(String vendorData) {
            this.vendorData = Objects.requireNonNull(vendorData, "vendorData");
            return this;
        }

        /** Adds a {@value NoCloudSeed#NETWORK_CONFIG_FILE} file with this content. */
        public Builder networkConfig(String networkConfig) {
            this.networkConfig = Objects.requireNonNull(networkConfig, "networkConfig");
            return this;
        }

        /** Returns the seed. */
        public NoCloudSeed build() {
            return new NoCloudSeed(this);
        }
    }
}
