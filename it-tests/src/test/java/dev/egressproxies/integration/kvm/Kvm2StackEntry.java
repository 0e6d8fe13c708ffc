package dev.egressproxies.integration.kvm;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Placement;
import dev.egressproxies.conformance.TestProviderContext;
import dev.egressproxies.endtoend.EgressctlProcess;
import dev.egressproxies.integration.ConfiguredProviders;
import dev.egressproxies.kvm.common.testing.ImageServer;
import dev.egressproxies.kvm.common.testing.Requests;
import dev.egressproxies.kvm.common.teststack.TestStack;
import dev.egressproxies.kvm.common.teststack.Virsh;
import dev.egressproxies.kvm2.Kvm2Provider;
import io.opentelemetry.api.OpenTelemetry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A {@code kvm2} entry of one test's own on the real stack, with a loopback image server of its
 * own. The entry's name is unique and starts with {@value NoKvmLeftovers#FAULT_PREFIX}; its base
 * and marker volumes ({@code NAME+KEY.SOURCE.base.qcow2[.sha256]}), its instances ({@code NAME-...}) and
 * their overlays and seeds all start with that name, so {@link #volumes()} and {@link #domains()}
 * show exactly what this entry made, and {@link #close()} removes it all, whatever the test did.
 */
final class Kvm2StackEntry implements AutoCloseable {
    private final TestStack stack = TestStack.load();
    private final String name;
    private final Path stateDirectory;
    private final ImageServer images;
    private final List<Kvm2Provider> providers = new ArrayList<>();

    private Kvm2StackEntry(String name, Path stateDirectory, ImageServer images) {
        this.name = name;
        this.stateDirectory = stateDirectory;
        this.images = images;
    }

    /** A fresh entry, named after {@code purpose}, whose providers keep their state in {@code stateDirectory}. */
    static Kvm2StackEntry create(String purpose, Path stateDirectory) {
        byte[] random = new byte[4];
        ThreadLocalRandom.current().nextBytes(random);
        try {
            return new Kvm2StackEntry(NoKvmLeftovers.FAULT_PREFIX + purpose + "-" + HexFormat.of().formatHex(random),
                    stateDirectory, new ImageServer());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The entry's name, which everything it makes on the stack starts with. */
    String name() {
        return name;
    }

    /** The entry's image server. */
    ImageServer images() {
        return images;
    }

    /** The stack's small qcow2 image, to serve. */
    byte[] stackImage() {
        try {
            return Files.readAllBytes(stack.qcow2Image());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The entry's configuration on the stack, to which tests add images and settings. */
    KvmTestConfig config() {
        return KvmTestConfig.kvm2().entry(name);
    }

    /** The provider of {@code config}, built through the registry, without telemetry. */
    Kvm2Provider provider(KvmTestConfig config) {
        return provider(config, OpenTelemetry.noop());
    }

    /** The provider of {@code config}, built through the registry, whose spans go to {@code openTelemetry}. */
    Kvm2Provider provider(KvmTestConfig config, OpenTelemetry openTelemetry) {
        try {
            Kvm2Provider provider = ConfiguredProviders.providerFromYaml(config.yaml(), name, Kvm2Provider.class,
                    new TestProviderContext(stateDirectory, openTelemetry));
            providers.add(provider);
            return provider;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * {@code egressctl} as a separate process on {@code config}, written to {@code folder}/work
     * (its working folder) with {@code folder}/home as its home; a run may take ten minutes.
     */
    EgressctlProcess egressctl(KvmTestConfig config, Path folder) {
        try {
            Path work = Files.createDirectories(folder.resolve("work"));
            Path file = Files.writeString(work.resolve("egress.yaml"), config.yaml());
            return new EgressctlProcess(Files.createDirectories(folder.resolve("home")), work)
                    .with("EGRESS_CONFIG", file.toString())
                    .withTimeout(Duration.ofMinutes(10));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The name of an instance of this entry. */
    String instance(String purpose) {
        return name + "-" + purpose;
    }

    /** A request for {@code instance} on the stack's host, booting {@code image} (a catalogue key or a URL). */
    CreateRequest request(String instance, String image) {
        return Requests.request(instance, new Placement(KvmTestConfig.HOST, KvmTestConfig.MACHINE_TYPE, image));
    }

    /** The base volume of catalogue image {@code key} served at {@code url} (qcow2, nothing declared but its digest). */
    String baseVolume(String key, String url) {
        return KvmTestConfig.kvm2Base(name, key, url);
    }

    /** The marker volume of catalogue image {@code key} served at {@code url}. */
    String markerVolume(String key, String url) {
        return baseVolume(key, url) + ".sha256";
    }

    /** The stack's pool. */
    String pool() {
        return stack.pool();
    }

    /** The volumes of the stack's pool this entry made: bases, markers, overlays, seeds. */
    List<String> volumes() {
        return Virsh.volumes(stack.pool(), name);
    }

    /** The domains this entry made. */
    List<String> domains() {
        return Virsh.domains(name);
    }

    /** The URL of {@code path} on the image server with user information added, as a careless operator writes it. */
    String urlWithUserInformation(String userInformation, String pathAndQuery) {
        return images.url(pathAndQuery).replace("http://", "http://" + userInformation + "@");
    }

    @Override
    public void close() {
        providers.forEach(Kvm2Provider::close);
        images.close();
        if (!domains().isEmpty()) {
            Scripts.run(60, "undefine-domains.sh", name);
        }
        for (String volume : volumes()) {
            Virsh.run("vol-delete", "--pool", stack.pool(), volume);
        }
        // A configuration with the second host keeps bases there too.
        Virsh second = StackHypervisors.virsh(stack, KvmTestConfig.HOST2);
        for (String volume : second.volumesNamed(stack.pool(), name)) {
            second.virsh("vol-delete", "--pool", stack.pool(), volume);
        }
    }
}
