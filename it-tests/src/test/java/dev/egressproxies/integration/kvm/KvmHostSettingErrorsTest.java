package dev.egressproxies.integration.kvm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.egressproxies.endtoend.EgressctlProcess;
import dev.egressproxies.kvm.common.teststack.TestStack;
import dev.egressproxies.kvm.common.teststack.Virsh;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Host settings that libvirt cannot carry out, through the packaged {@code egressctl} on the real
 * stack: a bridge that does not exist and a UEFI loader path that does not exist. Each is a
 * configuration error, so {@code create} exits 2 naming the setting to fix and leaves nothing of
 * the instance (no domain, overlay, seed or NVRAM file), and {@code check} fails that host's check
 * of the setting without creating anything. A create after fixing the bridge starts clean.
 */
@Tag("integration")
@ExtendWith(NoKvmLeftovers.class)
class KvmHostSettingErrorsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String NAME_PREFIX = NoKvmLeftovers.FAULT_PREFIX + "host-setting-";
    private static final String MISSING_BRIDGE = "nosuchbr0";
    private static final String MISSING_LOADER = "/nonexistent/OVMF_CODE_4M.fd";
    /** Where libvirt keeps the per-domain copy of the UEFI variables template. */
    private static final Path NVRAM_FOLDER = Path.of("/var/lib/libvirt/qemu/nvram");

    @TempDir
    Path temp;

    @Test
    void aMissingBridgeIsAConfigurationErrorThatLeavesNothing() throws IOException {
        KvmTestConfig entry = fixedCpu().hostSetting("bridge", KvmTestConfig.quoted(MISSING_BRIDGE));
        String name = NAME_PREFIX + "bridge";
        String expected = "hosts[0].bridge '" + MISSING_BRIDGE + "' does not exist on host '" + KvmTestConfig.HOST
                + "': create it or name an existing bridge";
        EgressctlProcess egressctl = egressctl(entry);

        expectFailedCheck(egressctl, entry, "hosts[0].bridge on host " + KvmTestConfig.HOST, expected);
        assertNothingLeft(name);

        EgressctlProcess.Result created = create(egressctl, entry, name);
        assertThat(created.exitCode()).as(created.toString()).isEqualTo(2);
        assertThat(created.err()).as(created.toString()).contains(expected, "nothing of instance " + name);
        assertNothingLeft(name);

        // The same name after the fix: a clean create on the stack's bridge, then deleted.
        EgressctlProcess fixed = egressctl(fixedCpu());
        EgressctlProcess.Result recreated = create(fixed, fixedCpu(), name);
        assertThat(recreated.exitCode()).as(recreated.toString()).isZero();
        assertThat(Virsh.domains(name)).containsExactly(name);
        EgressctlProcess.Result deleted = fixed.run("delete",
                KvmTestConfig.ENTRY + "/" + KvmTestConfig.HOST + "/" + name);
        assertThat(deleted.exitCode()).as(deleted.toString()).isZero();
        assertNothingLeft(name);
    }

    @Test
    void aMissingUefiLoaderIsAConfigurationErrorThatLeavesNothing() throws IOException {
        KvmTestConfig entry = KvmTestConfig.kvm2()
                .catalogueImage(KvmTestConfig.IMAGE, uefiImage())
                .hostSetting("domainType", "qemu")
                .hostSetting("uefiLoader", KvmTestConfig.quoted(MISSING_LOADER));
        String name = NAME_PREFIX + "loader";
        EgressctlProcess egressctl = egressctl(entry);

        expectFailedCheck(egressctl, entry, "hosts[0].uefiLoader on host " + KvmTestConfig.HOST,
                "hosts[0].uefiLoader '" + MISSING_LOADER + "' cannot be used on host '" + KvmTestConfig.HOST + "'");
        assertNothingLeft(name);

        EgressctlProcess.Result created = create(egressctl, entry, name);
        assertThat(created.exitCode()).as(created.toString()).isEqualTo(2);
        assertThat(created.err()).as(created.toString()).contains(
                "hosts[0].uefiLoader '" + MISSING_LOADER + "' does not exist on host '" + KvmTestConfig.HOST + "'",
                "nothing of instance " + name);
        assertNothingLeft(name);
    }

    /**
     * The stack's {@code kvm} entry with QEMU's default CPU model, which starts under KVM on these
     * nested hosts also where {@code host-model} (with its arch-capabilities MSR) does not.
     */
    private static KvmTestConfig fixedCpu() {
        return KvmTestConfig.standard().hostSetting("cpuMode", "default");
    }

    /** The stack's image, pinned, booted with UEFI. */
    private static String uefiImage() {
        TestStack stack = TestStack.load();
        String url = stack.value("EGRESS_TEST_HTTP_URL") + "/" + stack.value("EGRESS_TEST_IMAGE_QCOW2");
        return "{url: " + KvmTestConfig.quoted(url) + ", sha256: " + KvmTestConfig.sha256(stack.qcow2Image())
                + ", firmware: uefi}";
    }

    private EgressctlProcess egressctl(KvmTestConfig entry) throws IOException {
        Path work = Files.createDirectories(temp.resolve("work-" + entry.entry() + "-" + System.nanoTime()));
        Path config = Files.writeString(work.resolve("egress.yaml"), entry.yaml());
        return new EgressctlProcess(Files.createDirectories(work.resolve("home")), work)
                .with("EGRESS_CONFIG", config.toString());
    }

    private static EgressctlProcess.Result create(EgressctlProcess egressctl, KvmTestConfig entry, String name) {
        EgressctlProcess.Result result = egressctl.run("create", name, "--provider", entry.entry(), "--zone",
                KvmTestConfig.HOST, "--machine-type", KvmTestConfig.MACHINE_TYPE, "--image", KvmTestConfig.IMAGE);
        System.out.println("[host settings] " + result.commandLine() + " -> exit " + result.exitCode() + ": "
                + result.err().strip());
        return result;
    }

    /** {@code check} exits 1 and fails the named check, and only checks of that host's settings. */
    private static void expectFailedCheck(EgressctlProcess egressctl, KvmTestConfig entry, String checkName,
                                          String detail) throws IOException {
        EgressctlProcess.Result checked = egressctl.run("check", entry.entry(), "-o", "json");
        System.out.println("[host settings] check -> exit " + checked.exitCode() + ": " + checked.out().strip());
        assertThat(checked.exitCode()).as(checked.toString()).isEqualTo(1);
        JsonNode failed = null;
        for (JsonNode check : JSON.readTree(checked.out()).get("checks")) {
            if (!check.get("passed").asBoolean()) {
                assertThat(check.get("check").asText()).as("the failed check").isEqualTo(checkName);
                failed = check;
            }
        }
        assertThat(failed).as("a failed check in %s", checked.out()).isNotNull();
        assertThat(failed.get("detail").asText()).contains(detail);
    }

    private static void assertNothingLeft(String name) {
        assertThat(Virsh.domains(name)).as("domains").isEmpty();
        assertThat(NoKvmLeftovers.volumesNamedWith(TestStack.load().pool(), name)).as("overlay and seed").isEmpty();
        assertThat(NVRAM_FOLDER.resolve(name + "_VARS.fd")).as("the NVRAM file").doesNotExist();
    }
}
