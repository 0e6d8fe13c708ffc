package dev.egressproxies.integration;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.PreflightCheck;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.api.ZoneChoice;
import dev.egressproxies.api.conformance.Capability;
import dev.egressproxies.conformance.ConformanceTarget;
import dev.egressproxies.conformance.ProviderConformanceTest;
import dev.egressproxies.conformance.TestProviderContext;
import dev.egressproxies.fake.FakeProvider;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conformance suite against a backend whose images are an open namespace: any well-formed
 * reference (here a URL) is accepted, so the suite asserts that a blank or malformed one is
 * PERMANENT instead of an unknown name. The backend is the in-memory fake behind a wrapper that
 * accepts every reference and reports it back as requested.
 */
class OpenImageNamespaceConformanceTest extends ProviderConformanceTest {
    private static final String ENTRY = FakeProviderConformanceTest.ENTRY;
    private static final String IMAGE = "https://images.example.org/debian-12/disk.qcow2";

    @TempDir
    Path stateDirectory;

    @Override
    protected ConformanceTarget createTarget() throws Exception {
        FakeProvider fake = ConfiguredProviders.provider("/conformance/fake.yaml", ENTRY, FakeProvider.class,
                new TestProviderContext(stateDirectory));
        // The wrapper keeps no base images: it lacks MANAGES_IMAGES, as a backend without them.
        return FakeProviderConformanceTest.target(new AnyImage(fake), fake, IMAGE,
                Set.of(Capability.MANAGES_IMAGES));
    }

    /** The fake with any image reference: instances boot its one image and report the reference asked for. */
    private static final class AnyImage implements Provider {
        private static final String BOOTED = "debian-12";
        private final FakeProvider fake;
        private final Map<String, String> requested = new ConcurrentHashMap<>();

        AnyImage(FakeProvider fake) {
            this.fake = fake;
        }

        @Override
        public void validate(CreateRequest request) {
            requireReference(request);
            fake.validate(booted(request));
        }

        @Override
        public String create(CreateRequest request, Deadline deadline) {
            requireReference(request);
            String id = fake.create(booted(request), deadline);
            requested.put(request.name(), request.placement().image());
            return id;
        }

        @Override
        public List<ZoneChoice> place(List<Placement> placements, Deadline deadline) {
            return fake.place(placements.stream().map(placement -> new Placement(placement.zone(),
                    placement.machineType(), BOOTED)).toList(), deadline);
        }

        @Override
        public Instance get(String id, Deadline deadline) {
            return asRequested(fake.get(id, deadline));
        }

        @Override
        public void delete(String id, Deadline deadline) {
            fake.delete(id, deadline);
        }

        @Override
        public List<Instance> listManaged(Deadline deadline) {
            return fake.listManaged(deadline).stream().map(this::asRequested).toList();
        }

        @Override
        public List<PreflightCheck> preflight(Deadline deadline) {
            return fake.preflight(deadline);
        }

        @Override
        public void close() {
            fake.close();
        }

        private static void requireReference(CreateRequest request) {
            String image = request.placement().image();
            if (image.isBlank() || image.chars().anyMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c))) {
                throw new ProviderException(ErrorKind.PERMANENT, Operation.CREATE, ENTRY, request.name(),
                        "placement.image '" + image + "' is no image reference: give a URL or an image name");
            }
        }

        private static CreateRequest booted(CreateRequest request) {
            Placement placement = request.placement();
            return new CreateRequest(request.name(), request.uid(), new Placement(placement.zone(),
                    placement.machineType(), BOOTED), request.cloudInit());
        }

        private Instance asRequested(Instance instance) {
            Placement placement = instance.placement();
            String image = requested.getOrDefault(instance.name(), placement.image());
            return new Instance(instance.id(), instance.name(), instance.ip(), instance.state(), instance.uid(),
                    instance.createdAt(), new Placement(placement.zone(), placement.machineType(), image),
                    instance.userDataSha256());
        }
    }
}
