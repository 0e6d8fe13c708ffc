package dev.egressproxies.kvm.common.testing;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.Call;
import java.time.Duration;

/** The requests, deadlines and error catching the KVM backends' unit tests share. */
public final class Requests {
    private Requests() {
    }

    /** A valid request for {@code name} with that placement, whose cloud-init sets the hostname. */
    public static CreateRequest request(String name, Placement placement) {
        return new CreateRequest(name, "uid-" + name, placement, "#cloud-config\nhostname: " + name + "\n");
    }

    /** A call of a test's own host work (clean-up, inspection), with {@link #deadline()}. */
    public static Call call() {
        return new Call("test", Operation.GET, "", deadline());
    }

    /** A deadline far beyond any test. */
    public static Deadline deadline() {
        return Deadline.after(Duration.ofSeconds(30));
    }

    /** The {@link ProviderException} {@code call} throws; fails the test when it throws none. */
    public static ProviderException catchProviderException(Runnable call) {
        try {
            call.run();
        } catch (ProviderException error) {
            return error;
        }
        throw new AssertionError("no ProviderException was thrown");
    }
}
