/* Protocol tables: see CWaylandProtocols.h. */
