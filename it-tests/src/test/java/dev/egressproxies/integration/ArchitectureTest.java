package dev.egressproxies.integration;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;

/**
 * The dependency rules of the project's modules, checked on the compiled classes of every
 * project module on the test class path (provider-api, registry, provider-fake, this module's
 * suite and example plugin, and the others as they are added as test dependencies).
 *
 * <p>{@link #importsTheModulesTheRulesAreAbout} makes sure the rules do not pass merely because
 * nothing was imported.
 */
@AnalyzeClasses(packages = "dev.egressproxies", importOptions = ArchitectureTest.ExcludeTestJars.class)
class ArchitectureTest {
    private static final String PROJECT = "dev.egressproxies..";
    private static final String API = "dev.egressproxies.api..";
    private static final String REGISTRY = "dev.egressproxies.registry..";
    private static final String RUNTIME = "dev.egressproxies.runtime..";
    private static final String CONFORMANCE = "dev.egressproxies.conformance..";
    private static final String FAKE = "dev.egressproxies.fake..";
    private static final String EXAMPLE = "dev.egressproxies.example..";
    private static final String KVM = "dev.egressproxies.kvm..";
    private static final String KVM_COMMON = "dev.egressproxies.kvm.common..";
    private static final String KVM2 = "dev.egressproxies.kvm2..";

    @ArchTest
    static final ArchRule providerApiDependsOnNoOtherProjectPackage = classes()
            .that().resideInAPackage(API)
            .should().onlyDependOnClassesThat(outsideTheProjectOr(API))
            .because("provider-api is the contract every plugin compiles against; it must build and evolve"
                    + " on its own, so it may not know the registry, the runtime or any backend");

    @ArchTest
    static final ArchRule fakeBackendDependsOnlyOnProviderApi = classes()
            .that().resideInAPackage(FAKE)
            .should().onlyDependOnClassesThat(outsideTheProjectOr(API, FAKE))
            .because("a backend is a plugin written against provider-api alone, so it can be added, replaced"
                    + " or removed without touching anything else");

    @ArchTest
    static final ArchRule examplePluginDependsOnlyOnProviderApi = classes()
            .that().resideInAPackage(EXAMPLE)
            .should().onlyDependOnClassesThat(outsideTheProjectOr(API, EXAMPLE))
            .because("the example plugin stands for a third-party plugin, which has nothing but provider-api");

    @ArchTest
    static final ArchRule kvmCommonDependsOnlyOnProviderApi = classes()
            .that().resideInAPackage(KVM_COMMON)
            .should().onlyDependOnClassesThat(outsideTheProjectOr(API, KVM_COMMON))
            .because("kvm-common is shared by both KVM backends, so it may not know either of them");

    @ArchTest
    static final ArchRule kvmBackendDependsOnlyOnProviderApiAndKvmCommon = classes()
            .that(resideInAPackage(KVM).and(not(resideInAPackage(KVM_COMMON))))
            .should().onlyDependOnClassesThat(outsideTheProjectOr(API, KVM))
            .because("the KVM backend is a plugin: provider-api is its contract and kvm-common its only"
                    + " shared code");

    @ArchTest
    static final ArchRule kvm2BackendDependsOnlyOnProviderApiAndKvmCommon = classes()
            .that().resideInAPackage(KVM2)
            .should().onlyDependOnClassesThat(outsideTheProjectOr(API, KVM_COMMON, KVM2))
            .because("the second KVM backend is a plugin: provider-api is its contract and kvm-common its"
                    + " only shared code; it shares nothing with the first KVM backend");

    @ArchTest
    static final ArchRule noBackendDependsOnAnother = slices()
            .assignedFrom(new BackendSlices())
            .should().notDependOnEachOther()
            .because("backends are independent plugins: any of them may be absent at run time");

    @ArchTest
    static final ArchRule registryAndRuntimeImportNoBackend = noClasses()
            .that().resideInAnyPackage(REGISTRY, RUNTIME)
            .should().dependOnClassesThat().resideInAnyPackage(FAKE, EXAMPLE, KVM, KVM2)
            .because("backends are found with ServiceLoader and configured by type; the platform never names"
                    + " one in code, so a backend is only on the module or class path at run time");

    @ArchTest
    static final ArchRule conformanceSuiteDependsOnlyOnProviderApi = classes()
            .that().resideInAPackage(CONFORMANCE)
            .should().onlyDependOnClassesThat(outsideTheProjectOr(API, CONFORMANCE))
            .because("plugins outside this repository run the conformance suite with nothing but"
                    + " provider-api and their own backend");

    @ArchTest
    static final ArchRule onlyTheConformanceRunOfTheRuntimeNamesTheSuite = noClasses()
            .that().resideInAPackage(RUNTIME)
            .and().haveNameNotMatching("dev\\.egressproxies\\.runtime\\.cli\\.EntryConformanceRun(\\$.*)?")
            .should().dependOnClassesThat().resideInAPackage(CONFORMANCE)
            .because("the suite and JUnit are on the module path only for 'egressctl conformance' (lib/conformance),"
                    + " and picocli reflects on the methods of every command class: another runtime class naming"
                    + " them would break every other command");

    @ArchTest
    static final ArchRule noPackageCycles = slices()
            .matching("dev.egressproxies.(**)")
            .should().beFreeOfCycles()
            .because("a cycle between packages ties them into one unit that cannot be understood,"
                    + " tested or split apart on its own");

    @ArchTest
    static void importsTheModulesTheRulesAreAbout(JavaClasses classes) {
        assertThat(classes.stream().map(JavaClass::getPackageName).distinct())
                .as("packages imported for the architecture rules")
                .contains("dev.egressproxies.api", "dev.egressproxies.api.spi", "dev.egressproxies.registry",
                        "dev.egressproxies.fake", "dev.egressproxies.example", "dev.egressproxies.conformance",
                        "dev.egressproxies.runtime.cli", "dev.egressproxies.kvm", "dev.egressproxies.kvm.common.host",
                        "dev.egressproxies.kvm.common.instance", "dev.egressproxies.kvm2");
    }

    /**
     * Leaves out other modules' test code (kvm-common publishes its test fakes and test-stack
     * helpers in a test jar, which a reactor build without packaging resolves to its
     * {@code target/test-classes}): test code may depend on what it tests, so the rules are about
     * production code, plus this module's own test sources, whose example plugin stands for a third
     * party's production code.
     */
    static final class ExcludeTestJars implements ImportOption {
        private static final String OWN_TEST_CLASSES = "/it-tests/target/test-classes/";

        @Override
        public boolean includes(Location location) {
            if (location.contains("-tests.jar")) {
                return false;
            }
            return !location.contains("/target/test-classes/") || location.contains(OWN_TEST_CLASSES);
        }
    }

    private static DescribedPredicate<JavaClass> outsideTheProjectOr(String... packages) {
        return resideOutsideOfPackage(PROJECT).or(resideInAnyPackage(packages));
    }

    /** Assigns every backend class to a slice named after its backend; everything else to none. */
    private static final class BackendSlices implements SliceAssignment {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
            String name = javaClass.getPackageName();
            if (name.equals("dev.egressproxies.kvm.common") || name.startsWith("dev.egressproxies.kvm.common.")) {
                return SliceIdentifier.ignore();
            }
            for (String backend : new String[] {"fake", "example", "kvm", "kvm2"}) {
                String root = "dev.egressproxies." + backend;
                if (name.equals(root) || name.startsWith(root + ".")) {
                    return SliceIdentifier.of("backend " + backend);
                }
            }
            return SliceIdentifier.ignore();
        }

        @Override
        public String getDescription() {
            return "backends (fake, example, kvm, kvm2)";
        }
    }
}
