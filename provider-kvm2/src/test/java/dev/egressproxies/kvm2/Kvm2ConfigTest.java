package dev.egressproxies.kvm2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.config.MachineSize;
import dev.egressproxies.kvm.common.image.Archive;
import dev.egressproxies.kvm.common.image.Compression;
import dev.egressproxies.kvm.common.image.FetchLocation;
import dev.egressproxies.kvm.common.image.ImageSource;
import dev.egressproxies.kvm.common.testing.FakeLinkDialer;
import dev.egressproxies.kvm.common.testing.RegistryBinding;
import dev.egressproxies.kvm.common.xml.DiskFormat;
import dev.egressproxies.kvm2.config.CatalogueImage;
import dev.egressproxies.kvm2.config.Kvm2Config;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The configuration of a kvm2 entry: bound from YAML through the platform's registry, exactly as
 * the runtime loads it (reflectively, through the config packages' {@code opens}, with the
 * registry's strict rules), its defaults, and refusals that name the setting.
 */
class Kvm2ConfigTest {
    private static final String DIGEST = "0123456789abcdef".repeat(4);

    private final AtomicReference<Kvm2Config> bound = new AtomicReference<>();
    private final Kvm2ProviderFactory factory = new Kvm2ProviderFactory((entry, config, context) -> {
        bound.set(config);
        return new FakeLinkDialer();
    });

    @Test
    void everySettingBinds() throws Exception {
        build("""
                providers:
                  - name: kvm2-a
                    type: kvm2
                    hosts:
                      - name: host-1
                        address: 127.0.0.1
                        port: 2222
                        user: root
                        socket: /var/run/libvirt/libvirt-sock
                        pool: egress-test
                        bridge: br0
                        domainType: qemu
                        cpuMode: host-model
                        uefiLoader: /usr/share/OVMF/OVMF_CODE_4M.fd
                        uefiVarsTemplate: /usr/share/OVMF/OVMF_VARS_4M.fd
                      - {name: host-2, address: hypervisor-2.example.org, bridge: br1}
                    machineTypes:
                      small: {vcpus: 1, memoryMiB: 512}
                    images:
                      debian-12:
                        url: "https://example.org/debian-12.qcow2"
                        format: qcow2
                        sha256: "%s"
                        firmware: bios
                      appliance:
                        url: "https://example.org/appliance"
                        format: raw
                        compression: xz
                        archive: tar
                        archiveMember: disk.raw
                    diskSizeGb: 20
                    vendorData: "#cloud-config\\n"
                    sshKeyFile: /etc/egress/kvm/id_ed25519
                    knownHostsFile: /etc/egress/kvm/known_hosts
                    insecureIgnoreHostKey: false
                    handshakeTimeout: 10s
                    keepaliveInterval: 5s
                    rpcBudget: 45s
                    transferBudget: 30m
                    imageIdleTimeout: 45s
                """.formatted(DIGEST.toUpperCase()));

        Kvm2Config config = bound.get();
        assertThat(config.hosts()).containsExactly(
                new HostSettings("host-1", "127.0.0.1", 2222, "root", "/var/run/libvirt/libvirt-sock", "egress-test",
                        "br0", "qemu", "host-model", "/usr/share/OVMF/OVMF_CODE_4M.fd",
                        "/usr/share/OVMF/OVMF_VARS_4M.fd", null),
                HostSettings.of("host-2", "hypervisor-2.example.org", "br1"));
        assertThat(config.machineTypes()).containsExactly(Map.entry("small", new MachineSize(1, 512)));
        assertThat(config.images().get("debian-12")).isEqualTo(new CatalogueImage(
                "https://example.org/debian-12.qcow2", "qcow2", DIGEST, null, null, null, "bios"));
        ImageSource appliance = config.images().get("appliance").source();
        assertThat(appliance.format()).isEqualTo(DiskFormat.RAW);
        assertThat(appliance.compression()).isEqualTo(Compression.XZ);
        assertThat(appliance.archive()).isEqualTo(Archive.TAR);
        assertThat(appliance.archiveMember()).contains("disk.raw");
        assertThat(config.images().get("appliance").uefi()).isTrue();
        assertThat(config.diskSizeGb()).isEqualTo(20);
        assertThat(config.rpcBudget()).isEqualTo(Duration.ofSeconds(45));
        assertThat(config.transferBudget()).isEqualTo(Duration.ofMinutes(30));
        assertThat(config.imageIdleTimeout()).isEqualTo(Duration.ofSeconds(45));
        assertThat(config.sshAccess().dialTimeout()).isEqualTo(Duration.ofSeconds(20));
    }

    @Test
    void theSmallestEntryBindsWithDefaultsAndNoCatalogue() throws Exception {
        build("""
                providers:
                  - name: kvm2-a
                    type: kvm2
                    hosts: [{name: host-1, address: 10.0.0.5, bridge: br0}]
                    machineTypes: {small: {vcpus: 1, memoryMiB: 512}}
                    sshKeyFile: /etc/egress/kvm/id_ed25519
                    knownHostsFile: /etc/egress/kvm/known_hosts
                """);

        Kvm2Config config = bound.get();
        assertThat(config.images()).isEmpty();
        assertThat(config.diskSizeGb()).isEqualTo(10);
        assertThat(config.rpcBudget()).isEqualTo(Kvm2Config.DEFAULT_RPC_BUDGET);
        assertThat(config.transferBudget()).isEqualTo(Kvm2Config.DEFAULT_TRANSFER_BUDGET);
        assertThat(config.imageIdleTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.hosts().get(0).uefiLoader()).isEqualTo(HostSettings.DEFAULT_UEFI_LOADER);
    }

    @Test
    void aCatalogueEntryTakesWhatItsSuffixImpliesAndDefaultsToQcow2AndUefi() {
        CatalogueImage image = new CatalogueImage("https://example.org/disk.qcow2.xz", null, null, null, null, null,
                null);

        assertThat(image.source().compression()).isEqualTo(Compression.XZ);
        assertThat(image.source().format()).isEqualTo(DiskFormat.QCOW2);
        assertThat(image.source().sha256()).isEqualTo(Optional.empty());
        assertThat(image.uefi()).isTrue();
        assertThat(new CatalogueImage("https://example.org/disk.tar.gz", "raw", null, null, null, null, "bios")
                .source().archive()).isEqualTo(Archive.TAR);
    }

    @Test
    void wrongCatalogueSettingsNameTheSetting() {
        assertThatThrownBy(() -> image("https://example.org/d.qcow2", "0123", null, null, null))
                .hasMessageStartingWith("sha256: '0123' is not 64 hex digits");
        assertThatThrownBy(() -> image("https://example.org/d.qcow2", null, "rar", null, null))
                .hasMessageStartingWith("compression: ");
        assertThatThrownBy(() -> image("https://example.org/d.qcow2", null, null, "zip", null))
                .hasMessageStartingWith("archive: 'zip' is not supported; use one of none, tar");
        assertThatThrownBy(() -> image("https://example.org/d.qcow2", null, null, "none", "disk.raw"))
                .hasMessageStartingWith("archiveMember: set with archive: none");
        assertThatThrownBy(() -> image("ftp://example.org/d.qcow2", null, null, null, null))
                .hasMessageStartingWith("url: ");
        assertThatThrownBy(() -> new CatalogueImage("https://example.org/d", null, null, null, null, null, "efi"))
                .hasMessageStartingWith("firmware: 'efi' is not supported; use one of uefi, bios");
    }

    @Test
    void aDigestOfDigitsOnlyLeftUnquotedIsReadAsANumberAndTheMessageSaysToQuoteIt() {
        // YAML 1.1 reads leading zeros as an octal number: 64 zeros become 0.
        String digits = "0".repeat(64);

        assertThat(problems("""
                providers:
                  - name: kvm2-a
                    type: kvm2
                    hosts: [{name: host-1, address: 10.0.0.5, bridge: br0}]
                    machineTypes: {small: {vcpus: 1, memoryMiB: 512}}
                    images: {debian-12: {url: "https://example.org/d.qcow2", sha256: %s}}
                    sshKeyFile: /k
                    knownHostsFile: /h
                """.formatted(digits))).singleElement().asString()
                .contains("sha256: '0' is not 64 hex digits", "read as a number when unquoted: write it in quotes");
        assertThatThrownBy(() -> image("https://example.org/d.qcow2", "0", null, null, null))
                .hasMessageContaining("write it in quotes");
        assertThatThrownBy(() -> image("https://example.org/d.qcow2", "abc", null, null, null))
                .hasMessageNotContaining("quotes");
    }

    @Test
    void imagesAreFetchedByTheClientUnlessTheEntryOrTheImageSaysHost() throws Exception {
        build("""
                providers:
                  - name: kvm2-a
                    type: kvm2
                    hosts: [{name: host-1, address: 10.0.0.5, bridge: br0}]
                    machineTypes: {small: {vcpus: 1, memoryMiB: 512}}
                    images:
                      near: {url: "https://example.org/near.qcow2", fetch: client}
                      far: {url: "https://example.org/far.qcow2.xz"}
                    fetch: host
                    sshKeyFile: /k
                    knownHostsFile: /h
                """);

        Kvm2Config config = bound.get();
        assertThat(config.fetchLocation()).isEqualTo(FetchLocation.HOST);
        assertThat(config.images().get("near").fetchLocation(config.fetchLocation())).isEqualTo(FetchLocation.CLIENT);
        assertThat(config.images().get("far").fetchLocation(config.fetchLocation())).isEqualTo(FetchLocation.HOST);
        assertThat(new CatalogueImage("https://example.org/d.qcow2", null, null, null, null, null, null)
                .fetchLocation(FetchLocation.CLIENT)).isEqualTo(FetchLocation.CLIENT);
        assertThatThrownBy(() -> new CatalogueImage("https://example.org/d.qcow2", null, null, null, null, null, null,
                "hypervisor")).hasMessageStartingWith("fetch: ").hasMessageContaining("client or host");
    }

    @Test
    void budgetsMustBePositive() {
        assertThatThrownBy(() -> new Kvm2Config(List.of(HostSettings.of("h", "a", "br0")),
                Map.of("small", new MachineSize(1, 512)), null, null, null, Path.of("/k"), Path.of("/h"), null, null,
                null, Duration.ZERO, null, null, null, null, null)).hasMessageStartingWith("rpcBudget: PT0S is not positive");
    }

    @Test
    void aTypoIsReportedAtItsPathWithTheKnownFields() {
        assertThat(problems("""
                providers:
                  - name: kvm2-a
                    type: kvm2
                    hosts: [{name: host-1, address: 10.0.0.5, bridge: br0}]
                    machineTypes: {small: {vcpus: 1, memoryMiB: 512}}
                    images: {debian-12: {url: "https://example.org/d.qcow2", sha265: "x"}}
                    sshKeyFile: /k
                    knownHostsFile: /h
                """)).singleElement().asString()
                .contains("providers[0].images.debian-12.sha265: unknown field (known: archive, archiveMember,");
    }

    @Test
    void aHostWithAKvmOnlySettingIsRefused() {
        assertThat(problems("""
                providers:
                  - name: kvm2-a
                    type: kvm2
                    hosts: [{name: host-1, address: 10.0.0.5, bridge: br0, firmware: uefi}]
                    machineTypes: {small: {vcpus: 1, memoryMiB: 512}}
                    sshKeyFile: /k
                    knownHostsFile: /h
                """)).singleElement().asString().contains("providers[0].hosts[0].firmware: unknown field");
    }

    private static CatalogueImage image(String url, String sha256, String compression, String archive,
                                        String member) {
        return new CatalogueImage(url, null, sha256, compression, archive, member, null);
    }

    private List<String> problems(String yaml) {
        return RegistryBinding.problems(factory, yaml, "kvm2-a");
    }

    private void build(String yaml) throws Exception {
        assertThat(RegistryBinding.build(factory, yaml, "kvm2-a")).isInstanceOf(Kvm2Provider.class);
    }
}
