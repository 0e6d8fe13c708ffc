package dev.egressproxies.integration.kvm;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.integration.ConfiguredProviders;
import dev.egressproxies.conformance.TestProviderContext;
import dev.egressproxies.kvm2.Kvm2Provider;
import dev.egressproxies.registry.PluginCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;

/**
 * The program a crash test runs in a JVM of its own: one {@code kvm2} create on the test stack,
 * through the real SSH transport, optionally stopping for good right before one libvirt call
 * ({@link StopBeforeCall}) so the test can kill the JVM there.
 *
 * <pre>
 * Kvm2CreateMain CONFIG_FILE ENTRY NAME IMAGE [METHOD SUBJECT LABEL]
 * </pre>
 * Without a crash point the provider is the one the platform discovers. Prints {@code CREATED ID}
 * and exits 0, or prints {@code FAILED KIND: MESSAGE} and exits 1; logs go to standard error.
 */
public final class Kvm2CreateMain {
    /** What the line announcing success starts with; the provider ID follows. */
    static final String CREATED = "CREATED ";
    private static final Duration DEADLINE = Duration.ofMinutes(5);

    private Kvm2CreateMain() {
    }

    /** The command line of a create of {@code name} from {@code image} as {@code entry} of {@code config}. */
    static String[] arguments(Path config, String entry, String name, String image) {
        return new String[] {config.toString(), entry, name, image};
    }

    /** The same command line, stopping before {@code method} on {@code subject}, announced as {@code label}. */
    static String[] arguments(Path config, String entry, String name, String image, String method, String subject,
                              String label) {
        return new String[] {config.toString(), entry, name, image, method, subject, label};
    }

    public static void main(String[] arguments) throws Exception {
        if (arguments.length != 4 && arguments.length != 7) {
            System.err.println("usage: Kvm2CreateMain CONFIG_FILE ENTRY NAME IMAGE [METHOD SUBJECT LABEL], got "
                    + Arrays.toString(arguments));
            System.exit(2);
        }
        String yaml = Files.readString(Path.of(arguments[0]));
        String entry = arguments[1];
        String name = arguments[2];
        PluginCatalog plugins = arguments.length == 7
                ? PluginCatalog.of(new StoppingKvm2ProviderFactory(
                        new StopBeforeCall(arguments[4], arguments[5], arguments[6])))
                : PluginCatalog.discover();
        // Beside the configuration, in the test's temporary folder, which the test removes.
        Path state = Files.createDirectories(Path.of(arguments[0]).toAbsolutePath().resolveSibling("state-" + name));
        try (Kvm2Provider provider = ConfiguredProviders.providerFromYaml(yaml, plugins, entry, Kvm2Provider.class,
                new TestProviderContext(state))) {
            String id = provider.create(new CreateRequest(name, uid(name),
                    new Placement(KvmTestConfig.HOST, KvmTestConfig.MACHINE_TYPE, arguments[3]),
                    "#cloud-config\nhostname: " + name + "\n"), Deadline.after(DEADLINE));
            System.out.println(CREATED + id);
        } catch (ProviderException failure) {
            System.out.println("FAILED " + failure.kind() + ": " + failure.getMessage());
            failure.printStackTrace();
            System.exit(1);
        }
        // Connection threads of the SSH client may linger; the create is done.
        System.exit(0);
    }

    /** The UID every create of {@code name} passes, so a repeated create asks for the same instance. */
    static String uid(String name) {
        return "uid-" + name;
    }
}
