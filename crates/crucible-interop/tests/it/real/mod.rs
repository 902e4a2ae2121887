//! Every real file of each agent imported, and compared with facts counted
//! from the file by a small counter in the test, not by the importer.

mod connectonion;
