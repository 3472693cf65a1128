// The names ZooKeeper's ACLs see for SASL login names, as an ensemble started with
// -Dzookeeper.security.auth_to_local=RULES (and removeRealmFromPrincipal) maps them with its own KerberosName:
// java -cp "<kafka>/libs/*" ZookeeperShortNames.java RULES NAME... (tests/unit/test_kafka_zookeeper_login.py)
import org.apache.zookeeper.server.auth.KerberosName;
public class ZookeeperShortNames {
    public static void main(String[] args) throws Exception {
        System.setProperty("zookeeper.security.auth_to_local", args[0]);
        KerberosName.setConfiguration();
        for (int i = 1; i < args.length; i++) {
            try { System.out.println(new KerberosName(args[i]).getShortName()); }
            catch (KerberosName.NoMatchingRule e) { System.out.println("no rule"); }
        }
    }
}
